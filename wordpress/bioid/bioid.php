<?php
/**
 * Plugin Name:       BioID Fingerprint
 * Plugin URI:        https://www.npmjs.com/package/bioid-sdk
 * Description:       Fingerprint enroll, verify and search on your pages: blocks and a shortcode that survive the editor's filters for every role, a token broker for the roles the site owner grants it, and server-side confirmation of a verification for forms.
 * Version:           0.1.0
 * Requires at least: 6.1
 * Requires PHP:      7.4
 * License:           MIT
 * Text Domain:       bioid
 *
 * @package bioid
 */

defined( 'ABSPATH' ) || exit;

// The version of bioid-sdk whose bundle ships in assets/ (scripts/pack-wordpress.mjs writes it here and above).
define( 'BIOID_VERSION', '0.1.0' );
define( 'BIOID_PLUGIN_FILE', __FILE__ );
define( 'BIOID_PLUGIN_DIR', __DIR__ );

require_once __DIR__ . '/includes/settings.php';
require_once __DIR__ . '/includes/capabilities.php';
require_once __DIR__ . '/includes/client-token.php';
require_once __DIR__ . '/includes/middleware.php';
require_once __DIR__ . '/includes/elements.php';
require_once __DIR__ . '/includes/assets.php';
require_once __DIR__ . '/includes/blocks.php';
require_once __DIR__ . '/includes/shortcode.php';
require_once __DIR__ . '/includes/allowed-html.php';
require_once __DIR__ . '/includes/token-broker.php';
require_once __DIR__ . '/includes/confirm-verification.php';
require_once __DIR__ . '/includes/settings-page.php';

register_activation_hook( __FILE__, 'bioid_activate' );
register_deactivation_hook( __FILE__, 'bioid_deactivate' );

/** Activation: the daily sweep of spent verification ids (see confirm-verification.php). */
function bioid_activate() {
	if ( ! wp_next_scheduled( 'bioid_forget_spent_verifications' ) ) {
		wp_schedule_event( time() + HOUR_IN_SECONDS, 'daily', 'bioid_forget_spent_verifications' );
	}
}

/** Deactivation: no sweep without the plugin; the cached client token goes too. */
function bioid_deactivate() {
	wp_clear_scheduled_hook( 'bioid_forget_spent_verifications' );
	bioid_forget_client_token();
}
