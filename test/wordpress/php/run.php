<?php
/**
 * Runs PHP code inside the test site (site.ts `php()`): WordPress loaded, optionally as a user, the code
 * from BIOID_WP_CODE; what it echoes is the answer.
 */
$site = json_decode( getenv( 'BIOID_WP_SITE' ), true );
$_SERVER['HTTP_HOST']   = $site['host'];
$_SERVER['REQUEST_URI'] = '/';
require ABSPATH . 'wp-load.php';
if ( getenv( 'BIOID_WP_USER' ) ) {
	// By id: wp_set_current_user( 0, $login ) keeps an already loaded signed-out user.
	wp_set_current_user( get_user_by( 'login', getenv( 'BIOID_WP_USER' ) )->ID );
}
eval( getenv( 'BIOID_WP_CODE' ) );
