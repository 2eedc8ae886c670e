<?php
/**
 * The site's middleware token: the client-credentials exchange of spec 4.2, done in PHP with the secret
 * from the settings, and cached just under its expires_in. The token is the organisation's (a machine
 * identity), not a user's, so one cached token per site serves every signed-in user, as in the reference
 * broker (src/broker/handler.ts). Used by the token broker and by the server-side confirmation.
 *
 * @package bioid
 */

defined( 'ABSPATH' ) || exit;

const BIOID_TOKEN_TRANSIENT = 'bioid_client_token';
const BIOID_DEFAULT_AUDIENCE = 'biometrics-middleware';
/** Longest time a token is cached, whatever the issuer says (src/core/token-cache.ts MAX_CACHE_SECONDS). */
const BIOID_MAX_CACHE_SECONDS = 86400;
/** The most of an IdP's or the middleware's answer body that is read (1 MiB). */
const BIOID_MAX_RESPONSE_BYTES = 1048576;

/**
 * `{issuer}/realms/{realm}/protocol/openid-connect/token` (spec 4.2). An issuer URL that ends in
 * /realms/<name> supplies the realm (src/core/exchange.ts tokenEndpoint).
 *
 * @return string|WP_Error
 */
function bioid_token_endpoint( $issuer_url, $realm ) {
	if ( '' === $issuer_url ) {
		return new WP_Error( 'config', __( 'The identity provider URL is not set (Settings > BioID).', 'bioid' ) );
	}
	$issuer_url = untrailingslashit( $issuer_url );
	if ( preg_match( '#^(.*)/realms/([^/]+)$#', $issuer_url, $named ) ) {
		$named_realm = rawurldecode( $named[2] );
		if ( '' !== $realm && $realm !== $named_realm ) {
			/* translators: 1: realm setting, 2: realm in the identity provider URL */
			return new WP_Error( 'config', sprintf( __( 'The realm "%1$s" contradicts the realm "%2$s" in the identity provider URL; give one of them.', 'bioid' ), $realm, $named_realm ) );
		}
		return $named[1] . '/realms/' . rawurlencode( $named_realm ) . '/protocol/openid-connect/token';
	}
	if ( '' === $realm ) {
		return new WP_Error( 'config', __( 'The realm is not set: give it, or an identity provider URL ending in /realms/<realm> (Settings > BioID).', 'bioid' ) );
	}
	return $issuer_url . '/realms/' . rawurlencode( $realm ) . '/protocol/openid-connect/token';
}

/**
 * How long a token with lifetime $expires_in is used: up to 30 s before it expires, but never more than a
 * tenth of its life early (src/core/token-cache.ts cacheLifetimeMs), in whole seconds.
 */
function bioid_cache_lifetime( $expires_in ) {
	$lifetime = min( (float) $expires_in, BIOID_MAX_CACHE_SECONDS );
	return (int) floor( $lifetime - min( 30, $lifetime / 10 ) );
}

/**
 * The site's middleware token and the seconds left of its cached life (at least 1): from the cache, else
 * from the identity provider. Failures are WP_Error with a log-safe message (the endpoint and the HTTP
 * status or transport error; never the secret, a token or the provider's body).
 *
 * @param bool $fresh Ignore the cached token (after the middleware refused it with 401).
 * @return array{access_token: string, expires_in: int}|WP_Error
 */
function bioid_client_token( $fresh = false ) {
	// No token for a site whose IdP or middleware may not be trusted with it (plain http, settings that
	// must come from wp-config.php with the secret): also not a cached one, after wp-config.php changed.
	$problems = bioid_config_problems();
	if ( array() !== $problems ) {
		return new WP_Error( 'config', implode( ' ', $problems ) . ' (Settings > BioID)' );
	}
	$cached = $fresh ? false : get_transient( BIOID_TOKEN_TRANSIENT );
	if ( is_array( $cached ) && isset( $cached['access_token'], $cached['expires_at'] ) && $cached['expires_at'] > time() ) {
		return array(
			'access_token' => $cached['access_token'],
			'expires_in'   => max( 1, (int) $cached['expires_at'] - time() ),
		);
	}
	$issued = bioid_exchange_client_credentials();
	if ( is_wp_error( $issued ) ) {
		return $issued; // A failure is never cached: the next request tries again.
	}
	$lifetime = max( 1, bioid_cache_lifetime( $issued['expires_in'] ) );
	set_transient(
		BIOID_TOKEN_TRANSIENT,
		array(
			'access_token' => $issued['access_token'],
			'expires_at'   => time() + $lifetime,
		),
		$lifetime
	);
	return array(
		'access_token' => $issued['access_token'],
		'expires_in'   => $lifetime,
	);
}

/** Forgets the cached token (new settings, deactivation). */
function bioid_forget_client_token() {
	delete_transient( BIOID_TOKEN_TRANSIENT );
}

/**
 * One client_credentials exchange: POST grant_type, client_id, client_secret, audience to the token
 * endpoint, redirects not followed, bounded in time; the answer checked as src/core/token-response.ts does.
 *
 * @return array{access_token: string, expires_in: float}|WP_Error
 */
function bioid_exchange_client_credentials() {
	$settings = bioid_settings();
	$secret   = bioid_client_secret();
	if ( '' === $settings['client_id'] || '' === $secret ) {
		return new WP_Error( 'config', __( 'The client id or the client secret is not set (Settings > BioID).', 'bioid' ) );
	}
	$endpoint = bioid_token_endpoint( $settings['issuer_url'], $settings['realm'] );
	if ( is_wp_error( $endpoint ) ) {
		return $endpoint;
	}
	/**
	 * Filters the form of the client_credentials grant (to add a `scope`, or another audience).
	 *
	 * @param array $form grant_type, client_id, client_secret, audience.
	 */
	$form  = apply_filters(
		'bioid_client_credentials_form',
		array(
			'grant_type'    => 'client_credentials',
			'client_id'     => $settings['client_id'],
			'client_secret' => $secret,
			'audience'      => BIOID_DEFAULT_AUDIENCE,
		)
	);
	$reply = wp_remote_post(
		$endpoint,
		array(
			'body'        => $form,
			'headers'     => array( 'Accept' => 'application/json' ),
			'timeout'     => 10,
			'redirection' => 0, // A redirect answered by an IdP is never followed (docs/wire-contract.md).
			// A token answer is small; a hostile or broken IdP cannot make PHP hold more than this.
			'limit_response_size' => BIOID_MAX_RESPONSE_BYTES,
		)
	);
	if ( is_wp_error( $reply ) ) {
		/* translators: 1: token endpoint, 2: the transport error (names the host and system error, never a body) */
		return new WP_Error( 'network', sprintf( __( 'The identity provider at %1$s could not be reached (%2$s).', 'bioid' ), $endpoint, $reply->get_error_message() ) );
	}
	$status = (int) wp_remote_retrieve_response_code( $reply );
	if ( $status < 200 || $status > 299 ) {
		/* translators: 1: token endpoint, 2: HTTP status */
		return new WP_Error( 'auth', sprintf( __( 'The identity provider at %1$s refused the exchange with HTTP %2$d.', 'bioid' ), $endpoint, $status ) );
	}
	$body  = json_decode( wp_remote_retrieve_body( $reply ), true );
	$token = is_array( $body ) && isset( $body['access_token'] ) && is_string( $body['access_token'] ) ? trim( $body['access_token'] ) : '';
	// Any legal HTTP header value is a token (docs/wire-contract.md, "Tokens"); control characters are not.
	if ( '' === $token || ! preg_match( '/^[\x20-\x7E\x80-\xFF]+$/', $token ) ) {
		/* translators: %s: token endpoint */
		return new WP_Error( 'auth', sprintf( __( 'The identity provider at %s answered without a usable access_token.', 'bioid' ), $endpoint ) );
	}
	$expires_in = isset( $body['expires_in'] ) ? $body['expires_in'] : null;
	if ( ! ( is_int( $expires_in ) || is_float( $expires_in ) ) || ! is_finite( (float) $expires_in ) || $expires_in <= 0 ) {
		/* translators: %s: token endpoint */
		return new WP_Error( 'auth', sprintf( __( 'The identity provider at %s answered with an invalid expires_in; expected a positive number of seconds.', 'bioid' ), $endpoint ) );
	}
	return array(
		'access_token' => $token,
		'expires_in'   => (float) $expires_in,
	);
}
