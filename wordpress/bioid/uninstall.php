<?php
/**
 * Deleting the plugin deletes what it stored: the settings, the secret, the role grants, the cached token and the spent
 * verification ids.
 *
 * @package bioid
 */

defined( 'WP_UNINSTALL_PLUGIN' ) || exit;

global $wpdb;
delete_option( 'bioid_settings' );
delete_option( 'bioid_client_secret' );
// The grants of bioid_use_biometrics and bioid_enroll live only in this option (includes/capabilities.php).
delete_option( 'bioid_role_caps' );
delete_transient( 'bioid_client_token' );
$wpdb->query( $wpdb->prepare( "DELETE FROM {$wpdb->options} WHERE option_name LIKE %s", $wpdb->esc_like( 'bioid_spent_' ) . '%' ) );
wp_clear_scheduled_hook( 'bioid_forget_spent_verifications' );
