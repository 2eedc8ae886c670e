<?php
/**
 * Installs the test network (site.ts `network()`), in two runs as Tools > Network Setup does: first (no
 * MULTISITE in wp-config.php yet) WordPress with its super admin `netadmin` and the network's tables;
 * then (BIOID_WP_NETWORK set, wp-config.php now a network's) site 2 on its own host with its administrator
 * `siteadmin`, and the plugin activated for the whole network. Prints one JSON line.
 */
$site                   = json_decode( getenv( 'BIOID_WP_SITE' ), true );
$_SERVER['HTTP_HOST']   = $site['host'];
$_SERVER['REQUEST_URI'] = '/';
$_SERVER['REMOTE_ADDR'] = '127.0.0.1';

if ( ! getenv( 'BIOID_WP_NETWORK' ) ) {
	define( 'WP_INSTALLING', true );
	require ABSPATH . 'wp-load.php';
	require_once ABSPATH . 'wp-admin/includes/upgrade.php';
	global $wpdb;
	$installed = wp_install( 'BioID network', 'netadmin', 'netadmin@example.test', false, '', $site['users']['netadmin'] );
	if ( is_wp_error( $installed ) ) {
		fwrite( STDERR, $installed->get_error_message() );
		exit( 1 );
	}
	// As wp-admin/network.php does: the network's tables get their names before a single site knows them.
	foreach ( $wpdb->tables( 'ms_global' ) as $table => $prefixed_table ) {
		$wpdb->$table = $prefixed_table;
	}
	install_network();
	$network = populate_network( 1, $site['host'], 'netadmin@example.test', 'BioID network', '/', false );
	if ( is_wp_error( $network ) ) {
		fwrite( STDERR, $network->get_error_message() );
		exit( 1 );
	}
	echo wp_json_encode( array( 'installed' => true ) ), "\n";
	exit;
}

require ABSPATH . 'wp-load.php';
require_once ABSPATH . 'wp-admin/includes/plugin.php';
$admin = wp_insert_user(
	array(
		'user_login' => 'siteadmin',
		'user_pass'  => $site['users']['siteadmin'],
		'user_email' => 'siteadmin@example.test',
	)
);
$blog  = is_wp_error( $admin ) ? $admin : wpmu_create_blog( $site['site2'], '/', 'Site 2', $admin );
if ( is_wp_error( $blog ) ) {
	fwrite( STDERR, $blog->get_error_message() );
	exit( 1 );
}
// wp_insert_user made siteadmin a Subscriber of the main site too: only site 2 is theirs.
remove_user_from_blog( $admin, 1 );
$activated = activate_plugin( 'bioid/bioid.php', '', true );
if ( is_wp_error( $activated ) ) {
	fwrite( STDERR, $activated->get_error_message() );
	exit( 1 );
}
echo wp_json_encode( array( 'site2' => $blog ) ), "\n";
