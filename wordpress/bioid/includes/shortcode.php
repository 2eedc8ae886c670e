<?php
/**
 * The shortcode for the classic editor (and anywhere shortcodes run): `[bioid op="verify" subject-id="alice"]`
 * renders `<bio-verify subject-id="alice">`. `op` names the element (enroll, verify, search,
 * reader-status, enrolled, diagnostics where the bundle has it); every other attribute has the element's
 * own name. Attributes a post may not set (bioid_post_attributes) and unknown ones are dropped, with a
 * note for those who can edit the post.
 *
 * @package bioid
 */

defined( 'ABSPATH' ) || exit;

add_action(
	'init',
	function () {
		add_shortcode( 'bioid', 'bioid_shortcode' );
	}
);

/**
 * @param array|string $atts The shortcode's attributes (names lowercased by WordPress).
 * @return string
 */
function bioid_shortcode( $atts ) {
	$atts = is_array( $atts ) ? $atts : array();
	$ops  = array_map( static fn( $tag ) => substr( $tag, 4 ), array_keys( bioid_tags() ) );
	sort( $ops );
	if ( array() === $ops ) {
		return bioid_editor_note( __( '[bioid]: the element bundle is missing; install the plugin from its zip.', 'bioid' ) );
	}
	$op = isset( $atts['op'] ) ? strtolower( trim( (string) $atts['op'] ) ) : '';
	if ( ! in_array( $op, $ops, true ) ) {
		/* translators: 1: the op given, 2: the valid values */
		return bioid_editor_note( sprintf( __( '[bioid]: op="%1$s" is not one of %2$s.', 'bioid' ), $op, implode( ', ', $ops ) ) );
	}
	$tag = 'bio-' . $op;
	unset( $atts['op'] );
	$allowed  = bioid_post_attributes( $tag );
	$element  = array();
	$rejected = array();
	foreach ( $atts as $name => $value ) {
		if ( is_int( $name ) ) {
			// A bare word: `[bioid op="verify" required]` (a boolean attribute).
			$name  = strtolower( (string) $value );
			$value = true;
		}
		if ( in_array( $name, $allowed, true ) ) {
			$element[ $name ] = $value;
		} else {
			$rejected[] = $name;
		}
	}
	// A block-level wrapper, so a theme's layout (content width) applies; WordPress's shortcode_unautop
	// takes a shortcode alone on its line out of the paragraph wpautop put it in.
	$html = '<div class="bioid-shortcode">' . bioid_element_html( $tag, $element ) . '</div>';
	if ( array() !== $rejected ) {
		/* translators: 1: the dropped attributes, 2: the element, 3: the attributes it takes */
		$html .= bioid_editor_note( sprintf( __( '[bioid]: ignored %1$s (<%2$s> takes %3$s; the middleware, broker and local service are set in Settings > BioID).', 'bioid' ), implode( ', ', $rejected ), $tag, implode( ', ', $allowed ) ) );
	}
	return $html;
}
