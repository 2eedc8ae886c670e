<?php
/**
 * The site's server-side calls to the middleware (docs/wire-contract.md), with its own client token.
 *
 * @package bioid
 */

defined( 'ABSPATH' ) || exit;

/**
 * GET {middlewareUrl}/{path} with the site's client token (and X-Integrator-Id when set); after a 401,
 * one retry with a fresh token. Redirects are not followed.
 *
 * @return array|WP_Error The JSON object answered, or WP_Error `not-found` (404), `config`, `network`, `auth`, `bad-response`.
 */
function bioid_middleware_get( $path ) {
	$settings = bioid_settings();
	if ( '' === $settings['middleware_url'] ) {
		return new WP_Error( 'config', 'The middleware URL is not set (Settings > BioID).' );
	}
	$problems = bioid_config_problems();
	if ( isset( $problems['middleware_url'] ) ) {
		return new WP_Error( 'config', $problems['middleware_url'] . ' (Settings > BioID)' );
	}
	$url = trailingslashit( $settings['middleware_url'] ) . $path;
	foreach ( array( false, true ) as $fresh ) {
		$token = bioid_client_token( $fresh );
		if ( is_wp_error( $token ) ) {
			return $token;
		}
		$headers = array(
			'Authorization' => 'Bearer ' . $token['access_token'],
			'Accept'        => 'application/json',
		);
		if ( '' !== $settings['integrator_id'] ) {
			$headers['X-Integrator-Id'] = $settings['integrator_id'];
		}
		$reply = wp_remote_get(
			$url,
			array(
				'headers'     => $headers,
				'timeout'     => 10,
				'redirection' => 0,
				'limit_response_size' => BIOID_MAX_RESPONSE_BYTES,
			)
		);
		if ( is_wp_error( $reply ) ) {
			return new WP_Error( 'network', sprintf( 'The middleware at %s could not be reached (%s).', $url, $reply->get_error_message() ) );
		}
		$status = (int) wp_remote_retrieve_response_code( $reply );
		if ( 401 !== $status ) {
			break;
		}
	}
	if ( 404 === $status ) {
		return new WP_Error( 'not-found', sprintf( 'The middleware at %s knows no such record.', $url ) );
	}
	if ( $status < 200 || $status > 299 ) {
		return new WP_Error( 401 === $status ? 'auth' : 'bad-response', sprintf( 'The middleware at %s answered HTTP %d.', $url, $status ) );
	}
	$raw = wp_remote_retrieve_body( $reply );
	if ( ! is_object( json_decode( $raw ) ) ) {
		return new WP_Error( 'bad-response', sprintf( 'The middleware at %s answered with a body that is not a JSON object.', $url ) );
	}
	return json_decode( $raw, true );
}
