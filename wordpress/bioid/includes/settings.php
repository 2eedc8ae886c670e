<?php
/**
 * The plugin's settings: one option (`bioid_settings`) for everything a page may know, and a separate
 * option (`bioid_client_secret`, never autoloaded) for the client secret, which only the server reads.
 * The secret can also come from wp-config.php (`define( 'BIOID_CLIENT_SECRET', '…' );`), which keeps it
 * out of the database and its backups.
 *
 * Where the secret is a wp-config.php constant, whoever edits wp-config.php (on multisite: the network's
 * owner) owns it, so the addresses it is sent to and used with come from there too (BIOID_ISSUER_URL,
 * BIOID_REALM, BIOID_MIDDLEWARE_URL, BIOID_CLIENT_ID, BIOID_INTEGRATOR_ID): a site administrator who
 * points "Identity provider URL" at a server of theirs would otherwise receive the network's secret
 * (docs/wordpress.md, "Multisite"). The site's fields for them are then read-only and ignored.
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
			'help'  => __( 'The reader\'s local service on each workstation. Leave empty for the default (http://localhost:18065).', 'bioid' ),
		),
		'workstation_id'    => array(
			'label' => __( 'Workstation id', 'bioid' ),
			'help'  => __( 'Optional, with the device id: pin one workstation for every element of this site (a kiosk site) instead of finding the local one. Posts cannot set it: where staff enrol is the site\'s decision.', 'bioid' ),
		),
		'device_id'         => array(
			'label' => __( 'Device id', 'bioid' ),
			'help'  => __( 'Optional, with the workstation id.', 'bioid' ),
		),
		'language'          => array(
			'label' => __( 'Default language', 'bioid' ),
			'help'  => __( 'The language of the fingerprint buttons and messages. Empty: the page\'s language.', 'bioid' ),
		),
	);
}

/**
 * The settings that travel with a wp-config.php secret: setting key => constant.
 *
 * @return array<string, string>
 */
function bioid_config_constants() {
	return array(
		'middleware_url' => 'BIOID_MIDDLEWARE_URL',
		'integrator_id'  => 'BIOID_INTEGRATOR_ID',
		'issuer_url'     => 'BIOID_ISSUER_URL',
		'realm'          => 'BIOID_REALM',
		'client_id'      => 'BIOID_CLIENT_ID',
	);
}

/**
 * The settings this site's administrators cannot change: key => constant. Empty unless the secret comes
 * from wp-config.php.
 *
 * @return array<string, string>
 */
function bioid_locked_settings() {
	// The constant alone decides (no read of the secret option, which is not autoloaded).
	$constant = defined( 'BIOID_CLIENT_SECRET' ) && is_string( BIOID_CLIENT_SECRET ) && '' !== BIOID_CLIENT_SECRET;
	return $constant ? bioid_config_constants() : array();
}

/**
 * The settings as the site's administrators saved them, every key present ('' when not set).
 *
 * @return array<string, string>
 */
function bioid_saved_settings() {
	$saved    = get_option( BIOID_SETTINGS_OPTION, array() );
	$saved    = is_array( $saved ) ? $saved : array();
	$settings = array();
	foreach ( array_keys( bioid_setting_fields() ) as $key ) {
		$settings[ $key ] = isset( $saved[ $key ] ) && is_string( $saved[ $key ] ) ? $saved[ $key ] : '';
	}
	return $settings;
}

/**
 * The settings in effect, every key present ('' when not set): the saved ones, except that with a
 * wp-config.php secret the locked ones come from their constants (undefined: '').
 *
 * @return array<string, string>
 */
function bioid_settings() {
	$settings = bioid_saved_settings();
	foreach ( bioid_locked_settings() as $key => $constant ) {
		$value            = defined( $constant ) ? constant( $constant ) : '';
		$value            = is_string( $value ) ? trim( $value ) : '';
		$settings[ $key ] = ! empty( bioid_setting_fields()[ $key ]['url'] ) ? untrailingslashit( $value ) : $value;
	}
	return $settings;
}

/** The fields whose URL must be https outside loopback: the secret and the tokens travel to them. */
const BIOID_HTTPS_FIELDS = array( 'middleware_url', 'issuer_url' );

/**
 * Why $url may not receive the secret or a token, or null when it may: an absolute URL without
 * credentials, query or fragment, https unless it points at this machine.
 *
 * @param string $key A key of bioid_setting_fields().
 * @param string $url The URL.
 * @return string|null A message naming the field, never the URL's credentials.
 */
function bioid_url_problem( $key, $url ) {
	$label = bioid_setting_fields()[ $key ]['label'];
	if ( ! bioid_is_base_url( $url ) ) {
		/* translators: %s: field label */
		return sprintf( __( '%s is not an absolute http(s) URL without credentials, query or fragment.', 'bioid' ), $label );
	}
	if ( in_array( $key, BIOID_HTTPS_FIELDS, true ) && 'https' !== strtolower( (string) wp_parse_url( $url, PHP_URL_SCHEME ) ) && ! bioid_is_loopback_url( $url ) ) {
		/* translators: %s: field label */
		return sprintf( __( '%s must use https: the client secret and tokens would cross the network unencrypted (plain http is accepted for loopback only: localhost, 127.0.0.0/8, ::1).', 'bioid' ), $label );
	}
	return null;
}

/**
 * What keeps the settings in effect from working safely, for the settings page and the error of the
 * exchange: a field's message each.
 *
 * @return string[]
 */
function bioid_config_problems() {
	$settings = bioid_settings();
	$problems = array();
	foreach ( BIOID_HTTPS_FIELDS as $key ) {
		$problem = '' === $settings[ $key ] ? null : bioid_url_problem( $key, $settings[ $key ] );
		if ( null !== $problem ) {
			$problems[ $key ] = $problem;
		}
	}
	foreach ( bioid_locked_settings() as $key => $constant ) {
		if ( '' === $settings[ $key ] && in_array( $key, array( 'middleware_url', 'issuer_url', 'client_id' ), true ) ) {
			/* translators: 1: field label, 2: constant name */
			$problems[ $key ] = sprintf( __( '%1$s: the client secret is set in wp-config.php, so this must be too (define %2$s there).', 'bioid' ), bioid_setting_fields()[ $key ]['label'], $constant );
		}
	}
	return $problems;
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

/** Whether $url points at this machine: localhost, 127.0.0.0/8 or ::1 (plain http is fine there). */
function bioid_is_loopback_url( $url ) {
	$host = strtolower( (string) wp_parse_url( $url, PHP_URL_HOST ) );
	if ( in_array( $host, array( 'localhost', '[::1]', '::1' ), true ) ) {
		return true;
	}
	return (bool) preg_match( '/^127\.(25[0-5]|2[0-4]\d|1?\d?\d)\.(25[0-5]|2[0-4]\d|1?\d?\d)\.(25[0-5]|2[0-4]\d|1?\d?\d)$/', $host );
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
	$saved  = bioid_saved_settings();
	$locked = bioid_locked_settings();
	$output = array();
	foreach ( bioid_setting_fields() as $key => $field ) {
		if ( isset( $locked[ $key ] ) ) {
			// Set in wp-config.php with the secret: whatever a site's form sends is not stored or used.
			$output[ $key ] = $saved[ $key ];
			continue;
		}
		$value = isset( $input[ $key ] ) && is_string( $input[ $key ] ) ? trim( sanitize_text_field( $input[ $key ] ) ) : '';
		if ( ! empty( $field['url'] ) && '' !== $value ) {
			$value   = untrailingslashit( $value );
			$problem = bioid_url_problem( $key, $value );
			if ( null !== $problem ) {
				/* translators: %s: what is wrong, naming the field */
				add_settings_error( BIOID_SETTINGS_OPTION, "bioid-$key", sprintf( __( '%s The previous value was kept.', 'bioid' ), $problem ) );
				$value = $saved[ $key ];
			} elseif ( 'http' === strtolower( (string) wp_parse_url( $value, PHP_URL_SCHEME ) ) && ! bioid_is_loopback_url( $value ) ) {
				/* translators: %s: field label */
				add_settings_error( BIOID_SETTINGS_OPTION, "bioid-$key-http", sprintf( __( '%s uses plain http: fingerprints would cross the network unencrypted. Use https outside a test setup.', 'bioid' ), $field['label'] ), 'warning' );
			}
		}
		if ( 'language' === $key && ! in_array( $value, BIOID_LANGUAGES, true ) ) {
			/* translators: %s: the language entered */
			add_settings_error( BIOID_SETTINGS_OPTION, 'bioid-language', sprintf( __( 'Default language: "%s" is not one of en, de, fr, es; the previous value was kept.', 'bioid' ), $value ) );
			$value = $saved[ $key ];
		}
		$output[ $key ] = $value;
	}
	// A pin is both ids or neither (the elements refuse half a pin).
	if ( ( '' === $output['workstation_id'] ) !== ( '' === $output['device_id'] ) ) {
		add_settings_error( BIOID_SETTINGS_OPTION, 'bioid-pin', __( 'Workstation id and Device id go together: give both or neither; the previous values were kept.', 'bioid' ) );
		$output['workstation_id'] = $saved['workstation_id'];
		$output['device_id']      = $saved['device_id'];
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
