<?php
/**
 * Deleting the plugin deletes what it stored: the settings, the secret, the cached token and the spent
 * verification ids.
 *
 * @package bioid
 */

defined( 'WP_UNINSTALL_PLUGIN' ) || exit;

global $wpdb;
delete_option( 'bioid_settings' );
delete_option( 'bioid_client_secret' );
delete_transient( 'bioid_client_token' );
$wpdb->query( $wpdb->prepare( "DELETE FROM {$wpdb->options} WHERE option_name LIKE %s", $wpdb->esc_like( 'bioid_spent_' ) . '%' ) );
wp_clear_scheduled_hook( 'bioid_forget_spent_verifications' );
