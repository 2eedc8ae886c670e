<?php
/**
 * The blocks: one per element (blocks/<name>/block.json, `bioid/<name>` renders `<bio-<name>>`), rendered
 * on the server. What the post stores is the block comment with its attributes
 * (`<!-- wp:bioid/verify {"subjectId":"alice"} /-->`), which WordPress's filters keep for every role, on
 * multisite too; the element's HTML is written when the page is served. A block whose tag the shipped
 * bundle lacks is not registered.
 *
 * The editor script (assets/blocks-editor.js) uses the editor's globals, no build step: a placeholder
 * in the canvas and the attributes in the block sidebar.
 *
 * @package bioid
 */

defined( 'ABSPATH' ) || exit;

const BIOID_EDITOR_HANDLE = 'bioid-blocks-editor';

/**
 * Sidebar labels of the block attributes (camelCase, as in block.json).
 *
 * @return array<string, array{label: string, help: string}>
 */
function bioid_block_field_labels() {
	return array(
		'subjectId'     => array(
			'label' => __( 'Subject id', 'bioid' ),
			'help'  => __( 'Whose fingerprint: the id your system uses for the person.', 'bioid' ),
		),
		'agentId'       => array(
			'label' => __( 'Agent id', 'bioid' ),
			'help'  => __( 'Optional: who operates the reader, recorded with the operation.', 'bioid' ),
		),
		'name'          => array(
			'label' => __( 'Form field name', 'bioid' ),
			'help'  => __( 'Inside a form: the verification id is posted under this name, for the server to confirm.', 'bioid' ),
		),
		'required'      => array(
			'label' => __( 'Required in its form', 'bioid' ),
			'help'  => __( 'The form cannot be sent before a verification.', 'bioid' ),
		),
		'workstationId' => array(
			'label' => __( 'Workstation id', 'bioid' ),
			'help'  => __( 'Optional, with the device id: pin one workstation instead of finding the local one.', 'bioid' ),
		),
		'deviceId'      => array(
			'label' => __( 'Device id', 'bioid' ),
			'help'  => __( 'Optional, with the workstation id.', 'bioid' ),
		),
		'timeoutMs'     => array(
			'label' => __( 'Timeout (ms)', 'bioid' ),
			'help'  => __( 'Optional: how long one request may take.', 'bioid' ),
		),
		'lang'          => array(
			'label' => __( 'Language', 'bioid' ),
			'help'  => __( 'Optional: en, de, fr or es. Empty: the site\'s default.', 'bioid' ),
		),
	);
}

/** camelCase block attribute → the element's kebab-case attribute. */
function bioid_kebab( $name ) {
	return strtolower( preg_replace( '/([A-Z])/', '-$1', $name ) );
}

add_action(
	'init',
	function () {
		if ( ! bioid_bundle_present() ) {
			return;
		}
		wp_register_script(
			BIOID_EDITOR_HANDLE,
			plugins_url( 'assets/blocks-editor.js', BIOID_PLUGIN_FILE ),
			array( 'wp-blocks', 'wp-element', 'wp-block-editor', 'wp-components', 'wp-i18n' ),
			BIOID_VERSION,
			false
		);
		$tags    = bioid_tags();
		$labels  = bioid_block_field_labels();
		$editors = array();
		foreach ( glob( BIOID_PLUGIN_DIR . '/blocks/*/block.json' ) as $metadata ) {
			$dir = dirname( $metadata );
			$tag = 'bio-' . basename( $dir );
			if ( ! isset( $tags[ $tag ] ) ) {
				continue;
			}
			$type = register_block_type(
				$dir,
				array(
					'render_callback' => static function ( $attributes ) use ( $tag ) {
						$element = array();
						foreach ( (array) $attributes as $name => $value ) {
							$element[ bioid_kebab( $name ) ] = $value;
						}
						$html = bioid_element_html( $tag, $element );
						// A block-level wrapper, so the theme's layout (width, alignment, spacing) applies to it.
						return '' === $html ? '' : '<div ' . get_block_wrapper_attributes() . '>' . $html . '</div>';
					},
				)
			);
			if ( ! $type ) {
				continue;
			}
			$fields = array();
			foreach ( $type->attributes as $name => $schema ) {
				if ( ! isset( $labels[ $name ] ) || ! in_array( bioid_kebab( $name ), bioid_post_attributes( $tag ), true ) ) {
					continue;
				}
				$fields[] = array(
					'name'  => $name,
					'type'  => isset( $schema['type'] ) ? $schema['type'] : 'string',
					'label' => $labels[ $name ]['label'],
					'help'  => $labels[ $name ]['help'],
				);
			}
			$editors[] = array(
				'name'   => $type->name,
				'tag'    => $tag,
				'title'  => $type->title,
				'fields' => $fields,
			);
		}
		wp_add_inline_script(
			BIOID_EDITOR_HANDLE,
			'window.bioidBlocks = ' . wp_json_encode(
				array(
					'blocks'     => $editors,
					'configured' => '' !== bioid_settings()['middleware_url'],
					'settingsUrl' => admin_url( 'options-general.php?page=bioid' ),
				)
			) . ';',
			'before'
		);
	}
);
