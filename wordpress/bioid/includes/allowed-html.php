<?php
/**
 * For those who paste the tags: `<bio-verify subject-id="alice"></bio-verify>` in a Custom HTML block or
 * the classic editor's Text tab survives WordPress's HTML filter (kses) for roles without
 * `unfiltered_html` (Authors, Contributors, everyone on multisite but Super Admins), and the classic
 * editor's Visual tab (TinyMCE) keeps them too. Only the attributes a post may set are allowed; the
 * site's own (middleware, broker, tenant, local service) come from Settings > BioID. The `<script>` is
 * never needed: the plugin enqueues the bundle where the content has a tag.
 *
 * @package bioid
 */

defined( 'ABSPATH' ) || exit;

add_filter(
	'wp_kses_allowed_html',
	function ( $allowed, $context ) {
		if ( 'post' !== $context || ! is_array( $allowed ) ) {
			return $allowed;
		}
		foreach ( array_keys( bioid_tags() ) as $tag ) {
			$attributes = array(
				'class' => true,
				'id'    => true,
			);
			foreach ( bioid_post_attributes( $tag ) as $name ) {
				$attributes[ $name ] = true;
			}
			$allowed[ $tag ] = $attributes;
		}
		return $allowed;
	},
	10,
	2
);

// TinyMCE drops elements it does not know, in the browser, before anything is saved.
add_filter(
	'tiny_mce_before_init',
	function ( $init ) {
		$tags = array_keys( bioid_tags() );
		if ( array() === $tags ) {
			return $init;
		}
		$valid  = array();
		$custom = array();
		foreach ( $tags as $tag ) {
			$valid[]  = $tag . '[' . implode( '|', array_merge( array( 'class', 'id' ), bioid_post_attributes( $tag ) ) ) . ']';
			$custom[] = '~' . $tag; // ~: an inline element, like the button it renders.
		}
		$init['extended_valid_elements'] = trim( ( isset( $init['extended_valid_elements'] ) ? $init['extended_valid_elements'] . ',' : '' ) . implode( ',', $valid ), ',' );
		$init['custom_elements']         = trim( ( isset( $init['custom_elements'] ) ? $init['custom_elements'] . ',' : '' ) . implode( ',', $custom ), ',' );
		return $init;
	}
);
