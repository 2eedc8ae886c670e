<?php
/**
 * Installs the test site (run by site.ts with php-cli, ABSPATH set by the prepended file): the database
 * on MariaDB's socket, WordPress with wp_install() (Debian ships no wp-cli), the theme, an Author and a
 * Subscriber, and the plugin from its zip through Plugin_Upgrader, the code behind Plugins > Add New >
 * Upload Plugin. Prints one JSON line.
 */
$site = json_decode( getenv( 'BIOID_WP_SITE' ), true );
$_SERVER['HTTP_HOST']   = $site['host'];
$_SERVER['REQUEST_URI'] = '/';
define( 'WP_INSTALLING', true );

$db = new mysqli( 'localhost', 'root', '', '', 0, $site['socket'] );
$db->query( 'CREATE DATABASE IF NOT EXISTS wordpress CHARACTER SET utf8mb4' );
$db->close();

require ABSPATH . 'wp-load.php';
require_once ABSPATH . 'wp-admin/includes/upgrade.php';
require_once ABSPATH . 'wp-admin/includes/plugin.php';
require_once ABSPATH . 'wp-admin/includes/file.php';
require_once ABSPATH . 'wp-admin/includes/misc.php';
require_once ABSPATH . 'wp-admin/includes/class-wp-upgrader.php';

$installed = wp_install( 'BioID portal', 'admin', 'admin@example.test', false, '', $site['users']['admin'] );
if ( is_wp_error( $installed ) ) {
	fwrite( STDERR, $installed->get_error_message() );
	exit( 1 );
}
foreach ( array( 'author' => 'author', 'visitor' => 'subscriber' ) as $login => $role ) {
	$id = wp_insert_user(
		array(
			'user_login' => $login,
			'user_pass'  => $site['users'][ $login ],
			'user_email' => "$login@example.test",
			'role'       => $role,
		)
	);
	if ( is_wp_error( $id ) ) {
		fwrite( STDERR, $id->get_error_message() );
		exit( 1 );
	}
}
switch_theme( 'twentytwentythree' );

$upgrader = new Plugin_Upgrader( new Automatic_Upgrader_Skin() );
$result   = $upgrader->install( $site['zip'] );
if ( true !== $result ) {
	fwrite( STDERR, 'Plugin_Upgrader::install failed: ' . ( is_wp_error( $result ) ? $result->get_error_message() : var_export( $result, true ) ) . ' ' . implode( ' ', (array) $upgrader->skin->get_upgrade_messages() ) );
	exit( 1 );
}
$activated = activate_plugin( 'bioid/bioid.php' );
if ( is_wp_error( $activated ) ) {
	fwrite( STDERR, $activated->get_error_message() );
	exit( 1 );
}
echo wp_json_encode( array( 'installed' => true, 'plugin' => get_plugins()['bioid/bioid.php']['Version'] ) ), "\n";
