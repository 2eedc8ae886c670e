<?php
/**
 * The element bundle (assets/bioid-elements.js, shipped in the zip) and the page configuration
 * `window.BioIDElementsConfig`: registered on every page, enqueued only where an element is rendered
 * (a block, the shortcode, or pasted tags in the content).
 *
 * The page configuration holds what every element on the site shares: the middleware URL, the token
 * broker of this site (admin-ajax.php?action=bioid_token), the integrator id, the local service URL and
 * the sign-in page (WordPress's, leading back to this page), which turns `session-expired` into a link.
 * Never the secret: the elements refuse a key that is not one of theirs, and the secret stays in PHP.
 *
 * Content-Security-Policy: the configuration is one inline script before the bundle. A site with a
 * strict script-src gives it a nonce through the `wp_inline_script_attributes` filter (WordPress 6.3+)
 * or allows its hash; the bundle itself is a same-origin file ('self'), and so are the files it loads on
 * use from its own folder (assets/bioid-diagnostics.js, shipped beside it: an import() that inherits the
 * bundle's nonce and needs no Trusted Types policy). The bundle's ?ver= goes with them, so an update is
 * never mixed with a cached file of the version before.
 *
 * @package bioid
 */

defined( 'ABSPATH' ) || exit;

const BIOID_SCRIPT_HANDLE = 'bioid-elements';

/** The token broker's URL, as the elements call it (GET, login cookie, X-CSRF: 1). */
function bioid_token_endpoint_url() {
	return add_query_arg( 'action', 'bioid_token', admin_url( 'admin-ajax.php' ) );
}

/**
 * `window.BioIDElementsConfig` for this site: the settings a browser may know, with the elements' names.
 *
 * @return array<string, string>
 */
function bioid_page_config() {
	$settings = bioid_settings();
	$config   = array(
		'middlewareUrl'   => $settings['middleware_url'],
		'tokenEndpoint'   => bioid_token_endpoint_url(),
		'integratorId'    => $settings['integrator_id'],
		'localServiceUrl' => $settings['local_service_url'],
		// The site's pin (both or neither, settings.php); posts cannot set one (elements.php).
		'workstationId'   => $settings['workstation_id'],
		'deviceId'        => $settings['device_id'],
	);
	// A bundle older than login-url would refuse the key: only where its elements have the attribute.
	foreach ( bioid_tags() as $attributes ) {
		if ( in_array( 'login-url', $attributes, true ) ) {
			$config['loginUrl'] = wp_login_url( bioid_current_url() );
			break;
		}
	}
	/**
	 * Filters the page configuration of the elements (keys of BioIDElementsConfig only: an unknown key
	 * is a configuration error in the browser, a secret never belongs here).
	 *
	 * @param array $config middlewareUrl, tokenEndpoint, integratorId, localServiceUrl, workstationId, deviceId, loginUrl.
	 */
	$config = apply_filters( 'bioid_page_config', $config );
	return array_filter( (array) $config, static fn( $value ) => '' !== $value && null !== $value );
}

add_action(
	'init',
	function () {
		if ( ! bioid_bundle_present() ) {
			return;
		}
		wp_register_script( BIOID_SCRIPT_HANDLE, plugins_url( 'assets/bioid-elements.js', BIOID_PLUGIN_FILE ), array(), BIOID_VERSION, true );
	}
);

/** Puts the bundle and its configuration on this page (once, however many elements it has). */
function bioid_enqueue_elements() {
	static $configured = false;
	if ( ! wp_script_is( BIOID_SCRIPT_HANDLE, 'registered' ) ) {
		return;
	}
	if ( ! $configured ) {
		$configured = true;
		// Merged into what the page may already have set (strings, say), the site's values winning.
		$script = 'window.BioIDElementsConfig = Object.assign({}, window.BioIDElementsConfig, ' . wp_json_encode( bioid_page_config(), JSON_UNESCAPED_SLASHES | JSON_HEX_TAG | JSON_HEX_AMP ) . ');';
		wp_add_inline_script( BIOID_SCRIPT_HANDLE, $script, 'before' );
	}
	wp_enqueue_script( BIOID_SCRIPT_HANDLE );
}

// Tags pasted as HTML (allowed-html.php) need the bundle too. Late, after blocks and shortcodes ran.
add_filter(
	'the_content',
	function ( $content ) {
		if ( is_string( $content ) && false !== stripos( $content, '<bio-' ) ) {
			bioid_enqueue_elements();
		}
		return $content;
	},
	100
);
