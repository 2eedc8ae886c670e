<?php
/**
 * Who may use the fingerprint elements: two capabilities of the plugin's own, which no role has until the
 * site owner grants them in Settings > BioID (docs/wordpress.md, "Who gets a token").
 *
 *   bioid_use_biometrics  the token broker answers a token (verify, search, and enroll's own requests)
 *   bioid_enroll          the enroll block and shortcode render an element at all
 *
 * Why not "every signed-in user": the token is the organisation's machine identity, not the user's. It
 * lets its holder list any subject's enrollments, enroll a finger under any subject and verify as any
 * subject. A Subscriber (anyone, where registration is open) or, on multisite, a user of another site of
 * the network must not get it. The broker cannot tell which operation a token will serve, so the token
 * follows bioid_use_biometrics and bioid_enroll only decides where the enroll element is shown.
 *
 * The grants are one option (role => capabilities) applied through the `user_has_cap` filter, so nothing
 * is written into the roles and deleting the option (uninstall.php) removes every grant.
 *
 * On multisite with the client secret in wp-config.php, every site exchanges the network's client for the
 * same tenant-wide token, so a site's grants are the network's decision: only a super admin
 * (manage_network_options) may save them, a site administrator's post of the form changes nothing, and
 * grants saved without a super admin (say before the secret moved to wp-config.php) do not count. A site
 * with a secret of its own keeps its own grants (docs/wordpress.md, "Multisite").
 *
 * @package bioid
 */

defined( 'ABSPATH' ) || exit;

const BIOID_CAP_USE           = 'bioid_use_biometrics';
const BIOID_CAP_ENROLL        = 'bioid_enroll';
const BIOID_ROLE_CAPS_OPTION  = 'bioid_role_caps';
/** The mark a super admin's save puts on a site's grants where they are the network's decision. */
const BIOID_GRANTS_BY_NETWORK = 'granted_by_network';

/**
 * Whether this site's grants are the network's decision: multisite, with the client secret (and so the
 * client and the token) coming from wp-config.php.
 */
function bioid_grants_need_network() {
	return is_multisite() && array() !== bioid_locked_settings();
}

/**
 * The plugin's capabilities with their labels for the settings page.
 *
 * @return array<string, string>
 */
function bioid_capabilities() {
	return array(
		BIOID_CAP_USE    => __( 'Use fingerprints (gets the token: verify, search, enroll)', 'bioid' ),
		BIOID_CAP_ENROLL => __( 'Sees the enroll element', 'bioid' ),
	);
}

/**
 * The roles granted each capability: capability => role names. Empty until the site owner grants one.
 *
 * @return array<string, string[]>
 */
function bioid_role_grants() {
	$saved = get_option( BIOID_ROLE_CAPS_OPTION, array() );
	$saved = is_array( $saved ) ? $saved : array();
	if ( bioid_grants_need_network() && empty( $saved[ BIOID_GRANTS_BY_NETWORK ] ) ) {
		// Not saved by a super admin: a site administrator's grants do not hand out the network's token.
		$saved = array();
	}
	$grants = array();
	foreach ( array_keys( bioid_capabilities() ) as $cap ) {
		$roles          = isset( $saved[ $cap ] ) && is_array( $saved[ $cap ] ) ? $saved[ $cap ] : array();
		$grants[ $cap ] = array_values( array_filter( $roles, 'is_string' ) );
	}
	return $grants;
}

/**
 * Sanitizes the role checkboxes of the settings page: only existing roles, only the plugin's capabilities.
 * Where the grants are the network's decision, only a super admin's save is taken (and marked as theirs);
 * anyone else's leaves the stored grants as they are.
 *
 * @param mixed $input capability => role names.
 * @return array<string, string[]|bool>
 */
function bioid_sanitize_role_caps( $input ) {
	if ( bioid_grants_need_network() && ! current_user_can( 'manage_network_options' ) ) {
		return get_option( BIOID_ROLE_CAPS_OPTION, array() );
	}
	$input  = is_array( $input ) ? $input : array();
	$roles  = array_keys( wp_roles()->get_names() );
	$output = array();
	foreach ( array_keys( bioid_capabilities() ) as $cap ) {
		$given          = isset( $input[ $cap ] ) && is_array( $input[ $cap ] ) ? array_map( 'strval', $input[ $cap ] ) : array();
		$output[ $cap ] = array_values( array_intersect( $roles, $given ) );
	}
	if ( bioid_grants_need_network() ) {
		$output[ BIOID_GRANTS_BY_NETWORK ] = true;
	}
	return $output;
}

/**
 * Whether $user has one of the plugin's capabilities on the current site: a member of this site (on
 * multisite, being signed in to the network is not membership) whose role here was granted it, or who
 * was given the capability itself. A super admin's blanket "yes" to every capability does not count: a
 * super admin gets the token like anyone else, through a grant.
 *
 * @param string       $cap  BIOID_CAP_USE or BIOID_CAP_ENROLL.
 * @param WP_User|null $user Default: the current user.
 */
function bioid_user_granted( $cap, $user = null ) {
	$user = $user instanceof WP_User ? $user : wp_get_current_user();
	if ( ! $user->exists() || ! array_key_exists( $cap, bioid_capabilities() ) ) {
		return false;
	}
	if ( ! is_user_member_of_blog( $user->ID, get_current_blog_id() ) ) {
		// A user of another site of the network, or one removed from this site: no role here, no grant.
		if ( ! ( is_multisite() && is_super_admin( $user->ID ) ) ) {
			return false;
		}
	}
	if ( array() !== array_intersect( (array) $user->roles, bioid_role_grants()[ $cap ] ) ) {
		return true;
	}
	// Given to the user directly (or to a role by a role editor): the capability itself, not a super admin's all.
	// Not where the grants are the network's: a role editor on one site could do what its form cannot.
	return ! bioid_grants_need_network() && ! empty( $user->allcaps[ $cap ] );
}

// current_user_can( 'bioid_use_biometrics' ) and user_can() follow the grants (for other plugins and themes).
add_filter(
	'user_has_cap',
	static function ( $allcaps, $caps, $args, $user ) {
		foreach ( array_keys( bioid_capabilities() ) as $cap ) {
			if ( in_array( $cap, (array) $caps, true ) && empty( $allcaps[ $cap ] ) && $user instanceof WP_User && bioid_user_granted( $cap, $user ) ) {
				$allcaps[ $cap ] = true;
			}
		}
		return $allcaps;
	},
	10,
	4
);

add_action(
	'init',
	function () {
		register_setting(
			'bioid',
			BIOID_ROLE_CAPS_OPTION,
			array(
				'type'              => 'object',
				'sanitize_callback' => 'bioid_sanitize_role_caps',
				'default'           => array(),
				'show_in_rest'      => false,
			)
		);
	}
);
