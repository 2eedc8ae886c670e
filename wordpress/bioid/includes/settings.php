<?php
/**
 * The plugin's settings: one option (`bioid_settings`) for everything a page may know, and a separate
 * option (`bioid_client_secret`, never autoloaded) for the client secret, which only the server reads.
 * The secret can also come from wp-config.php (`define( 'BIOID_CLIENT_SECRET', '…' );`), which keeps it
 * out of the database and its backups.
 *
 * @package bioid
 */

defined( 'ABSPATH' ) || exit;

const BIOID_SETTINGS_OPTION = 'bioid_settings';
const BIOID_SECRET_OPTION   = 'bioid_client_secret';

/** Languages the elements ship (src/elements/translations); '' follows the page's language. */
const BIOID_LANGUAGES = array( '', 'en', 'de', 'fr', 'es' );

/**
 * The settings fields: key => label. URL fields are checked as absolute http(s) URLs.
 *
 * @return array<string, array{label: string, url?: bool, help?: string}>
 */
function bioid_setting_fields() {
	return array(
		'middleware_url'    => array(
			'label' => __( 'Middleware URL', 'bioid' ),
			'url'   => true,
			'help'  => __( 'The biometrics middleware, for example https://biometrics.example.com. Tokens from this site are sent to this origin only.', 'bioid' ),
		),
		'integrator_id'     => array(
			'label' => __( 'Integrator id', 'bioid' ),
			'help'  => __( 'Your tenant id at the middleware (sent as X-Integrator-Id).', 'bioid' ),
		),
		'issuer_url'        => array(
			'label' => __( 'Identity provider URL', 'bioid' ),
			'url'   => true,
			'help'  => __( 'The identity provider\'s base address, or its realm issuer ending in /realms/<realm>.', 'bioid' ),
		),
		'realm'             => array(
			'label' => __( 'Realm', 'bioid' ),
			'help'  => __( 'Required unless the identity provider URL ends in /realms/<realm>.', 'bioid' ),
		),
		'client_id'         => array(
			'label' => __( 'Client id', 'bioid' ),
			'help'  => __( 'Your organisation\'s machine identity at the identity provider.', 'bioid' ),
		),
		'local_service_url' => array(
			'label' => __( 'Local service URL', 'bioid' ),
			'url'   => true,
			'help'  => __( 'The reader\'s local service on each workstation. Leave empty for the default (http://127.0.0.1:18065).', 'bioid' ),
		),
		'language'          => array(
			'label' => __( 'Default language', 'bioid' ),
			'help'  => __( 'The language of the fingerprint buttons and messages. Empty: the page\'s language.', 'bioid' ),
		),
	);
}

/**
 * The saved settings, every key present ('' when not set).
 *
 * @return array<string, string>
 */
function bioid_settings() {
	$saved    = get_option( BIOID_SETTINGS_OPTION, array() );
	$saved    = is_array( $saved ) ? $saved : array();
	$settings = array();
	foreach ( array_keys( bioid_setting_fields() ) as $key ) {
		$settings[ $key ] = isset( $saved[ $key ] ) && is_string( $saved[ $key ] ) ? $saved[ $key ] : '';
	}
	return $settings;
}

/**
 * The client secret, from wp-config.php's BIOID_CLIENT_SECRET or the option; '' when not set. Server-side
 * only: nothing that renders a page or answers a browser may print it.
 */
function bioid_client_secret() {
	if ( defined( 'BIOID_CLIENT_SECRET' ) && is_string( BIOID_CLIENT_SECRET ) && '' !== BIOID_CLIENT_SECRET ) {
		return BIOID_CLIENT_SECRET;
	}
	$secret = get_option( BIOID_SECRET_OPTION, '' );
	return is_string( $secret ) ? $secret : '';
}

/** Where the secret comes from, for the settings page: 'constant', 'option' or ''. */
function bioid_client_secret_source() {
	if ( defined( 'BIOID_CLIENT_SECRET' ) && is_string( BIOID_CLIENT_SECRET ) && '' !== BIOID_CLIENT_SECRET ) {
		return 'constant';
	}
	return '' !== bioid_client_secret() ? 'option' : '';
}

/**
 * Whether $url is an absolute http(s) URL without credentials, query or fragment (what the SDK accepts
 * as a base address).
 */
function bioid_is_base_url( $url ) {
	$parts = wp_parse_url( $url );
	if ( ! is_array( $parts ) || ! isset( $parts['scheme'], $parts['host'] ) ) {
		return false;
	}
	foreach ( array( 'user', 'pass', 'query', 'fragment' ) as $part ) {
		if ( isset( $parts[ $part ] ) ) {
			return false;
		}
	}
	return in_array( strtolower( $parts['scheme'] ), array( 'http', 'https' ), true );
}

/** Whether $url points at this machine (plain http is fine there, as for the local service). */
function bioid_is_loopback_url( $url ) {
	$host = strtolower( (string) wp_parse_url( $url, PHP_URL_HOST ) );
	return in_array( $host, array( 'localhost', '127.0.0.1', '[::1]', '::1' ), true ) || '.localhost' === substr( $host, -10 );
}

/**
 * Sanitizes a submitted settings form: each field trimmed, URLs checked (an invalid one keeps the saved
 * value and says which field and why), the language one of the shipped ones.
 *
 * @param mixed $input The submitted array.
 * @return array<string, string>
 */
function bioid_sanitize_settings( $input ) {
	$input  = is_array( $input ) ? $input : array();
	$saved  = bioid_settings();
	$output = array();
	foreach ( bioid_setting_fields() as $key => $field ) {
		$value = isset( $input[ $key ] ) && is_string( $input[ $key ] ) ? trim( sanitize_text_field( $input[ $key ] ) ) : '';
		if ( ! empty( $field['url'] ) && '' !== $value ) {
			$value = untrailingslashit( $value );
			if ( ! bioid_is_base_url( $value ) ) {
				/* translators: 1: field label, 2: the value entered */
				add_settings_error( BIOID_SETTINGS_OPTION, "bioid-$key", sprintf( __( '%1$s: "%2$s" is not an absolute http(s) URL without query or fragment; the previous value was kept.', 'bioid' ), $field['label'], $value ) );
				$value = $saved[ $key ];
			} elseif ( 'http' === strtolower( (string) wp_parse_url( $value, PHP_URL_SCHEME ) ) && ! bioid_is_loopback_url( $value ) ) {
				/* translators: %s: field label */
				add_settings_error( BIOID_SETTINGS_OPTION, "bioid-$key-http", sprintf( __( '%s uses plain http: tokens and fingerprints would cross the network unencrypted. Use https outside a test setup.', 'bioid' ), $field['label'] ), 'warning' );
			}
		}
		if ( 'language' === $key && ! in_array( $value, BIOID_LANGUAGES, true ) ) {
			/* translators: %s: the language entered */
			add_settings_error( BIOID_SETTINGS_OPTION, 'bioid-language', sprintf( __( 'Default language: "%s" is not one of en, de, fr, es; the previous value was kept.', 'bioid' ), $value ) );
			$value = $saved[ $key ];
		}
		$output[ $key ] = $value;
	}
	return $output;
}

/**
 * Sanitizes the secret field: an empty field keeps the stored secret (the page never shows it, so an
 * untouched field arrives empty); the "remove" box clears it.
 *
 * @param mixed $input The submitted value.
 * @return string
 */
function bioid_sanitize_secret( $input ) {
	// options.php checked the form's nonce and unslashed the values before any sanitize callback runs.
	// phpcs:ignore WordPress.Security.NonceVerification.Missing
	if ( ! empty( $_POST['bioid_client_secret_remove'] ) ) {
		return '';
	}
	$value = is_string( $input ) ? trim( $input ) : '';
	if ( '' === $value ) {
		$stored = get_option( BIOID_SECRET_OPTION, '' );
		return is_string( $stored ) ? $stored : '';
	}
	return $value;
}

add_action(
	'init',
	function () {
		register_setting(
			'bioid',
			BIOID_SETTINGS_OPTION,
			array(
				'type'              => 'object',
				'sanitize_callback' => 'bioid_sanitize_settings',
				'default'           => array(),
				'show_in_rest'      => false,
			)
		);
		register_setting(
			'bioid',
			BIOID_SECRET_OPTION,
			array(
				'type'              => 'string',
				'sanitize_callback' => 'bioid_sanitize_secret',
				'default'           => '',
				'show_in_rest'      => false,
			)
		);
	}
);

// The secret is read only by the token broker and the confirmation: never autoloaded into every request.
add_action(
	'add_option_' . BIOID_SECRET_OPTION,
	function () {
		global $wpdb;
		$wpdb->update( $wpdb->options, array( 'autoload' => 'no' ), array( 'option_name' => BIOID_SECRET_OPTION ) );
		wp_cache_delete( 'alloptions', 'options' );
	}
);

// New credentials, issuer or middleware: the cached client token belongs to the old ones.
add_action( 'update_option_' . BIOID_SETTINGS_OPTION, 'bioid_forget_client_token' );
add_action( 'update_option_' . BIOID_SECRET_OPTION, 'bioid_forget_client_token' );
add_action( 'add_option_' . BIOID_SECRET_OPTION, 'bioid_forget_client_token' );
