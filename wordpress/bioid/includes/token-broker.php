<?php
/**
 * The token broker of spec 4.1 inside WordPress, following the broker contract (docs/broker-contract.md)
 * as the reference broker does (src/broker/handler.ts):
 *
 *   GET {site}/wp-admin/admin-ajax.php?action=bioid_token    with the login cookie and X-CSRF: 1
 *   200 { access_token, expires_in, middleware_url }           Cache-Control: no-store
 *
 * admin-ajax.php is where WordPress reads its login cookie without a REST nonce, which is how the
 * elements call a broker (credentials: 'include' and X-CSRF: 1, nothing else). Refusals, in order:
 * 405 for a method other than GET or OPTIONS (a preflight: 204 for an allowed origin, else 403);
 * 403 { error, reason: "csrf" } without X-CSRF: 1; 401 { error, reason } without a login (reason
 * "no-cookie" when a cross-site request carried no cookie at all, else "no-session"); 403 { error,
 * reason: "forbidden" } for a signed-in user without bioid_use_biometrics (capabilities.php); 502 { error }
 * exactly when the identity provider gives no token.
 *
 * CORS: WordPress itself answers its own origins (send_origin_headers); no other origin gets a grant
 * unless listed with the `bioid_token_allowed_origins` filter (exact origins).
 *
 * @package bioid
 */

defined( 'ABSPATH' ) || exit;

add_action( 'wp_ajax_bioid_token', 'bioid_token_broker' );
add_action( 'wp_ajax_nopriv_bioid_token', 'bioid_token_broker' );
// A preflight must be answered before admin-ajax.php's own send_origin_headers(), which refuses every
// origin but the site's and, for those, grants no request header (X-CSRF would fail the preflight).
add_action( 'init', 'bioid_token_preflight', 0 );

/** OPTIONS …?action=bioid_token: 204 and a grant for an allowed origin, else a bare 403. */
function bioid_token_preflight() {
	// phpcs:ignore WordPress.Security.NonceVerification.Recommended -- routing only: the action name.
	if ( ! wp_doing_ajax() || ! isset( $_REQUEST['action'] ) || 'bioid_token' !== $_REQUEST['action'] ) {
		return;
	}
	if ( ! isset( $_SERVER['REQUEST_METHOD'] ) || 'OPTIONS' !== $_SERVER['REQUEST_METHOD'] ) {
		return;
	}
	$origin = isset( $_SERVER['HTTP_ORIGIN'] ) ? sanitize_text_field( wp_unslash( $_SERVER['HTTP_ORIGIN'] ) ) : null;
	$grant  = null !== $origin && in_array( $origin, bioid_token_allowed_origins(), true ) ? $origin : null;
	bioid_broker_headers( $grant );
	header_remove( 'Content-Type' ); // No body: no type.
	if ( null === $grant ) {
		header( 'Allow: GET, OPTIONS' );
		status_header( 403 );
	} else {
		header( 'Access-Control-Allow-Methods: GET' );
		header( 'Access-Control-Allow-Headers: X-CSRF, Authorization' );
		header( 'Access-Control-Max-Age: 600' );
		header( 'Vary: Origin, Access-Control-Request-Method, Access-Control-Request-Headers' );
		status_header( 204 );
	}
	exit;
}

/** Generic texts only: the IdP's answer, the secret and stacks stay on the server. */
function bioid_broker_messages() {
	return array(
		'method'       => 'Use GET to obtain a token.',
		'csrf'         => 'Missing anti-CSRF header: send X-CSRF: 1.',
		'unauthorized' => 'Sign in to obtain a token.',
		'forbidden'    => 'Your account may not use fingerprints on this site. Ask the site owner.',
		'no-cookie'    => 'The browser sent no cookie to this token broker, which is on another site than the page: host the broker on the page\'s site.',
		'exchange'     => 'The identity provider did not issue a token. Try again later.',
	);
}

/**
 * Exact origins (scheme://host[:port]) besides the site's own that may get tokens from a page of theirs.
 *
 * @return string[]
 */
function bioid_token_allowed_origins() {
	/**
	 * Filters the origins of other sites whose pages may get this site's tokens. Default: none. Each is
	 * an exact origin; '*' is never honoured (a wildcard cannot carry the login cookie).
	 *
	 * @param string[] $origins
	 */
	$origins = (array) apply_filters( 'bioid_token_allowed_origins', array() );
	return array_values( array_filter( $origins, static fn( $origin ) => is_string( $origin ) && '*' !== $origin && '' !== $origin ) );
}

/** The admin-ajax handler: answers and exits. */
function bioid_token_broker() {
	$method = isset( $_SERVER['REQUEST_METHOD'] ) ? strtoupper( sanitize_text_field( wp_unslash( $_SERVER['REQUEST_METHOD'] ) ) ) : 'GET';
	$origin = isset( $_SERVER['HTTP_ORIGIN'] ) ? sanitize_text_field( wp_unslash( $_SERVER['HTTP_ORIGIN'] ) ) : null;
	$grant  = null !== $origin && in_array( $origin, bioid_token_allowed_origins(), true ) ? $origin : null;
	$text   = bioid_broker_messages();

	if ( 'GET' !== $method ) {
		header( 'Allow: GET, OPTIONS' );
		bioid_broker_answer( 405, array( 'error' => $text['method'] ), $grant );
	}
	// Another site can make a browser send the login cookie, not a custom header without a preflight.
	if ( ! isset( $_SERVER['HTTP_X_CSRF'] ) || '1' !== $_SERVER['HTTP_X_CSRF'] ) {
		bioid_broker_answer(
			403,
			array(
				'error'  => $text['csrf'],
				'reason' => 'csrf',
			),
			$grant
		);
	}
	/**
	 * Filters who may get a middleware token from this site. Default: a member of this site granted
	 * bioid_use_biometrics in Settings > BioID (includes/capabilities.php), which no role has until the
	 * site owner grants it. The token is the organisation's: it can enroll, verify and list for any subject.
	 *
	 * @param bool    $allowed Whether the current request may get a token.
	 * @param WP_User $user    The current user (ID 0 when signed out).
	 */
	$user = wp_get_current_user();
	if ( ! apply_filters( 'bioid_can_get_token', bioid_user_granted( BIOID_CAP_USE, $user ), $user ) ) {
		if ( $user->exists() ) {
			// Signed in, but not allowed: a new sign-in would not help, so not 401.
			bioid_broker_answer(
				403,
				array(
					'error'  => $text['forbidden'],
					'reason' => 'forbidden',
				),
				$grant
			);
		}
		$cross_site = isset( $_SERVER['HTTP_SEC_FETCH_SITE'] ) && 'cross-site' === $_SERVER['HTTP_SEC_FETCH_SITE'];
		$no_cookie  = $cross_site && empty( $_SERVER['HTTP_COOKIE'] );
		bioid_broker_answer(
			401,
			array(
				'error'  => $no_cookie ? $text['no-cookie'] : $text['unauthorized'],
				'reason' => $no_cookie ? 'no-cookie' : 'no-session',
			),
			$grant
		);
	}
	$token = bioid_client_token();
	if ( is_wp_error( $token ) ) {
		// The log line names the endpoint and the status or transport error; never the secret or a token.
		// phpcs:ignore WordPress.PHP.DevelopmentFunctions.error_log_error_log
		error_log( 'bioid token broker: ' . $token->get_error_message() . ' Answered 502.' );
		bioid_broker_answer( 502, array( 'error' => $text['exchange'] ), $grant );
	}
	$body             = array(
		'access_token' => $token['access_token'],
		'expires_in'   => $token['expires_in'],
	);
	$middleware_url = bioid_settings()['middleware_url'];
	if ( '' !== $middleware_url ) {
		// The token is bound to this middleware: the SDK never sends it to another origin.
		$body['middleware_url'] = $middleware_url;
	}
	bioid_broker_answer( 200, $body, $grant );
}

/** Headers of every answer: no caching anywhere, no sniffing, the grant for an allowed other origin. */
function bioid_broker_headers( $grant ) {
	header( 'Cache-Control: no-store' );
	header( 'Pragma: no-cache' );
	header( 'X-Content-Type-Options: nosniff' );
	header( 'Vary: Origin' );
	if ( null !== $grant ) {
		header( 'Access-Control-Allow-Origin: ' . $grant );
		header( 'Access-Control-Allow-Credentials: true' );
	}
}

/**
 * Sends a JSON answer and ends the request.
 *
 * @param int         $status HTTP status.
 * @param array       $body   The JSON body.
 * @param string|null $grant  An allowed other origin, or null.
 */
function bioid_broker_answer( $status, array $body, $grant ) {
	status_header( $status );
	bioid_broker_headers( $grant );
	header( 'Content-Type: application/json; charset=utf-8' );
	echo wp_json_encode( $body, JSON_UNESCAPED_SLASHES );
	exit;
}
