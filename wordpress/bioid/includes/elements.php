<?php
/**
 * The custom elements as the plugin knows them, and the one function that writes an element's HTML (the
 * blocks, the shortcode and nothing else call it).
 *
 * Which tags exist and which attributes each has comes from the bundle itself: scripts/pack-wordpress.mjs
 * writes assets/elements.json from the package's custom-elements.json, so a tag or attribute added to the
 * elements reaches the blocks, the shortcode and the allowed HTML without an edit here.
 *
 * Some attributes decide where tokens and fingerprints go (the middleware, the token broker, the tenant,
 * the local service, the sign-in page). Those are the site's, set once by an administrator in
 * Settings > BioID; a post cannot set them, whoever wrote it.
 *
 * @package bioid
 */

defined( 'ABSPATH' ) || exit;

/**
 * Attributes only the site sets (page configuration or the plugin itself), never a post. The workstation
 * and device pin are among them: they decide at which reader, and so where, staff enrol and verify, which
 * is the site owner's choice, not an Author's (Settings > BioID sets one pin for the site).
 */
const BIOID_SITE_ATTRIBUTES = array( 'middleware-url', 'token-endpoint', 'integrator-id', 'local-service-url', 'login-url', 'workstation-id', 'device-id' );

/**
 * Every tag of the shipped bundle with its attributes (kebab-case), read once from assets/elements.json.
 * Empty when the bundle is missing (the plugin was not installed from the packed zip).
 *
 * @return array<string, string[]>
 */
function bioid_tags() {
	static $tags = null;
	if ( null === $tags ) {
		$tags = array();
		$file = BIOID_PLUGIN_DIR . '/assets/elements.json';
		// A local file of the plugin's own, not a remote URL.
		// phpcs:ignore WordPress.WP.AlternativeFunctions.file_get_contents_file_get_contents
		$json = is_readable( $file ) ? json_decode( (string) file_get_contents( $file ), true ) : null;
		if ( is_array( $json ) && isset( $json['tags'] ) && is_array( $json['tags'] ) ) {
			foreach ( $json['tags'] as $tag => $attributes ) {
				if ( is_string( $tag ) && preg_match( '/^bio-[a-z-]+$/', $tag ) && is_array( $attributes ) ) {
					$tags[ $tag ] = array_values( array_filter( $attributes, 'is_string' ) );
				}
			}
		}
	}
	return $tags;
}

/** Whether the bundle (and its tag list) shipped with this copy of the plugin. */
function bioid_bundle_present() {
	return is_readable( BIOID_PLUGIN_DIR . '/assets/bioid-elements.js' ) && array() !== bioid_tags();
}

/**
 * The attributes of $tag a post may set (blocks, shortcode, pasted HTML): all but the site's.
 *
 * @return string[]
 */
function bioid_post_attributes( $tag ) {
	$tags = bioid_tags();
	return isset( $tags[ $tag ] ) ? array_values( array_diff( $tags[ $tag ], BIOID_SITE_ATTRIBUTES ) ) : array();
}

/** Attributes that are present or absent rather than valued (the form's `required`). */
function bioid_is_boolean_attribute( $name ) {
	return in_array( $name, array( 'required', 'disabled' ), true );
}

/**
 * The HTML of one element: $tag with the post's attributes (those it may set; others are dropped) and
 * the site's default language when the post gives none. Enqueues the bundle. Values are escaped here, once.
 *
 * @param string               $tag        A tag of bioid_tags().
 * @param array<string, mixed> $attributes kebab-case name => value (booleans for present/absent).
 * @return string
 */
function bioid_element_html( $tag, array $attributes ) {
	$tags = bioid_tags();
	if ( ! isset( $tags[ $tag ] ) ) {
		return '';
	}
	if ( 'bio-enroll' === $tag && ! bioid_user_granted( BIOID_CAP_ENROLL ) ) {
		// Enrolling is for the staff the site owner granted bioid_enroll (includes/capabilities.php).
		return bioid_editor_note( __( 'Fingerprint enroll: shown only to users granted bioid_enroll (Settings > BioID).', 'bioid' ) );
	}
	bioid_enqueue_elements();
	$allowed = bioid_post_attributes( $tag );
	$html    = '<' . $tag;
	$settings = bioid_settings();
	if ( ! isset( $attributes['lang'] ) && '' !== $settings['language'] && in_array( 'lang', $tags[ $tag ], true ) ) {
		$attributes['lang'] = $settings['language'];
	}
	foreach ( $attributes as $name => $value ) {
		if ( ! in_array( $name, $allowed, true ) || null === $value || '' === $value ) {
			continue;
		}
		if ( bioid_is_boolean_attribute( $name ) ) {
			if ( true === $value || in_array( strtolower( (string) $value ), array( '1', 'true', 'yes', $name ), true ) ) {
				$html .= ' ' . $name;
			}
			continue;
		}
		$html .= ' ' . $name . '="' . esc_attr( is_bool( $value ) ? ( $value ? 'true' : 'false' ) : (string) $value ) . '"';
	}
	return $html . '></' . $tag . '>';
}

/** The URL of the page being rendered (the sign-in page's way back to it). */
function bioid_current_url() {
	$permalink = in_the_loop() ? get_permalink() : false;
	if ( $permalink ) {
		return $permalink;
	}
	// The sign-in page checks its redirect_to with wp_validate_redirect, so a forged Host cannot send a visitor away.
	$host = isset( $_SERVER['HTTP_HOST'] ) ? sanitize_text_field( wp_unslash( $_SERVER['HTTP_HOST'] ) ) : '';
	$path = isset( $_SERVER['REQUEST_URI'] ) ? esc_url_raw( wp_unslash( $_SERVER['REQUEST_URI'] ) ) : '/';
	return '' === $host ? home_url( '/' ) : ( is_ssl() ? 'https://' : 'http://' ) . $host . $path;
}

/**
 * A note for those who can edit the post (a mistake in a shortcode is theirs to fix); nothing for
 * visitors but an HTML comment.
 */
function bioid_editor_note( $message ) {
	if ( current_user_can( 'edit_posts' ) ) {
		return '<span class="bioid-note" role="note">' . esc_html( $message ) . '</span>';
	}
	return '<!-- bioid: ' . esc_html( str_replace( '--', '- -', $message ) ) . ' -->';
}

// A <bio-enroll> pasted into a post's HTML is not rendered by the plugin: drop it for users without
// bioid_enroll too, after blocks and shortcodes have run.
add_filter(
	'the_content',
	static function ( $content ) {
		if ( ! is_string( $content ) || false === stripos( $content, '<bio-enroll' ) || bioid_user_granted( BIOID_CAP_ENROLL ) ) {
			return $content;
		}
		return (string) preg_replace( '#<bio-enroll\b[^>]*>.*?</bio-enroll\s*>#is', '', $content );
	},
	20
);
