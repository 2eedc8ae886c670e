<?php
/**
 * Confirming a verification on the server (docs/wire-contract.md), for forms. A `match: true` seen in a
 * browser is never proof: anyone can post any id. The server asks the middleware, with the site's own
 * client token, for GET {middlewareUrl}/verifications/{id}, and accepts the record only when it exists,
 * matched, names the subject the server expects and is younger than $max_age seconds; then it spends the
 * id, so each id is accepted once (also under concurrent posts: see bioid_spend_verification).
 *
 *   $confirmed = bioid_confirm_verification( $_POST['bioid_verification'], $expected_subject_id );
 *   if ( is_wp_error( $confirmed ) ) { ... refuse the form ... }
 *
 * Form plugins that must not depend on this plugin being active use the filter, which fails closed:
 *
 *   $confirmed = apply_filters( 'bioid_confirm_verification', new WP_Error( 'bioid-inactive', '…' ), $id, $subject_id );
 *
 * @package bioid
 */

defined( 'ABSPATH' ) || exit;

/** How far in the future a createdAt may lie (clock skew between servers), in seconds. */
const BIOID_CLOCK_SKEW_SECONDS = 10;
/** How long a spent id is remembered: longer than any sensible $max_age. */
const BIOID_SPENT_RETENTION_SECONDS = DAY_IN_SECONDS;

/**
 * @param mixed  $verification_id The id the browser posted (the verify element's form value).
 * @param string $subject_id      The subject your server expects (the signed-in user's, the form's record), never one the browser chose.
 * @param int    $max_age         Seconds the verification may be old; default 120.
 * @return array|WP_Error The middleware's record, or WP_Error: code `verification-rejected` (forged,
 *                        unknown, no match, another subject, too old, already used) or the transport's
 *                        (`config`, `network`, `auth`, `bad-response`) when the middleware could not be asked.
 */
function bioid_confirm_verification( $verification_id, $subject_id, $max_age = 120 ) {
	if ( ! is_string( $subject_id ) || '' === $subject_id ) {
		return new WP_Error( 'config', 'bioid_confirm_verification: $subject_id must be a non-empty string (the subject your server expects).' );
	}
	// "." or ".." as a path segment would address another resource; real ids are short (at most 256).
	if ( ! is_string( $verification_id ) || '' === $verification_id || strlen( $verification_id ) > 256 || '.' === $verification_id || '..' === $verification_id ) {
		return bioid_rejected( 'no usable id' );
	}
	if ( bioid_verification_spent( $verification_id ) ) {
		return bioid_rejected( 'this verification was already used' );
	}
	$record = bioid_middleware_get( 'verifications/' . rawurlencode( $verification_id ) );
	if ( is_wp_error( $record ) ) {
		return 'not-found' === $record->get_error_code() ? bioid_rejected( 'unknown id' ) : $record;
	}
	// The record must be the one asked for, to the byte: a middleware that matches ids ignoring case or
	// trailing blanks would otherwise accept one verification once per spelling.
	if ( ! isset( $record['verificationId'] ) || ! is_string( $record['verificationId'] ) || $record['verificationId'] !== $verification_id ) {
		return bioid_rejected( 'the middleware answered for another id' );
	}
	$created = isset( $record['createdAt'] ) && is_string( $record['createdAt'] ) ? bioid_iso_time( $record['createdAt'] ) : null;
	$age     = null === $created ? null : microtime( true ) - $created;
	if ( ! isset( $record['match'] ) || true !== $record['match'] ) {
		return bioid_rejected( 'no match' );
	}
	if ( ! isset( $record['subjectId'] ) || $record['subjectId'] !== $subject_id ) {
		return bioid_rejected( 'another subject' );
	}
	if ( null === $age || $age < -BIOID_CLOCK_SKEW_SECONDS || $age > $max_age ) {
		return bioid_rejected( sprintf( 'createdAt is not an ISO 8601 time with a zone within the last %d s', $max_age ) );
	}
	// Spent under the record's own id (the middleware's), not under the string the browser posted.
	if ( ! bioid_spend_verification( $record['verificationId'] ) ) {
		return bioid_rejected( 'this verification was already used' );
	}
	return $record;
}

add_filter(
	'bioid_confirm_verification',
	static function ( $default, $verification_id = null, $subject_id = null, $max_age = 120 ) {
		return bioid_confirm_verification( $verification_id, $subject_id, $max_age );
	},
	10,
	4
);

function bioid_rejected( $why ) {
	return new WP_Error( 'verification-rejected', sprintf( 'Verification rejected: %s; verify again.', $why ) );
}

/** Seconds since the epoch of an ISO 8601 date-time with its zone, or null (a time without a zone is not trusted). */
function bioid_iso_time( $value ) {
	if ( ! preg_match( '/^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)$/', $value ) ) {
		return null;
	}
	try {
		$time = new DateTimeImmutable( $value );
	} catch ( Exception $e ) {
		return null;
	}
	return (float) $time->format( 'U.u' );
}

/** The option that records a spent id (hashed: any id fits the option name, none is stored). */
function bioid_spent_option_name( $verification_id ) {
	return 'bioid_spent_' . hash( 'sha256', $verification_id );
}

function bioid_verification_spent( $verification_id ) {
	global $wpdb;
	return null !== $wpdb->get_var( $wpdb->prepare( "SELECT option_id FROM {$wpdb->options} WHERE option_name = %s", bioid_spent_option_name( $verification_id ) ) );
}

/**
 * Spends an id: one INSERT against the options table's unique option_name, so of two requests racing
 * with the same id exactly one inserts the row. (add_option is not atomic: it checks, then inserts with
 * ON DUPLICATE KEY UPDATE.) Returns false when the id was spent already.
 */
function bioid_spend_verification( $verification_id ) {
	global $wpdb;
	$inserted = $wpdb->query(
		$wpdb->prepare(
			"INSERT IGNORE INTO {$wpdb->options} (option_name, option_value, autoload) VALUES (%s, %s, 'no')",
			bioid_spent_option_name( $verification_id ),
			(string) time()
		)
	);
	return 1 === $inserted;
}

// The daily sweep (scheduled on activation): spent ids older than any sensible max age are dropped.
add_action(
	'bioid_forget_spent_verifications',
	static function () {
		global $wpdb;
		$wpdb->query(
			$wpdb->prepare(
				"DELETE FROM {$wpdb->options} WHERE option_name LIKE %s AND CAST(option_value AS UNSIGNED) < %d",
				$wpdb->esc_like( 'bioid_spent_' ) . '%',
				time() - BIOID_SPENT_RETENTION_SECONDS
			)
		);
	}
);
