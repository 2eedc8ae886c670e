<?php
/**
 * Settings > BioID (capability manage_options). The client secret field is write-only: the page says
 * whether a secret is set and offers to replace or remove it, but never prints it back.
 *
 * @package bioid
 */

defined( 'ABSPATH' ) || exit;

add_action(
	'admin_menu',
	function () {
		add_options_page( __( 'BioID fingerprint', 'bioid' ), __( 'BioID', 'bioid' ), 'manage_options', 'bioid', 'bioid_render_settings_page' );
	}
);

add_filter(
	'plugin_action_links_' . plugin_basename( BIOID_PLUGIN_FILE ),
	function ( $links ) {
		array_unshift( $links, '<a href="' . esc_url( admin_url( 'options-general.php?page=bioid' ) ) . '">' . esc_html__( 'Settings', 'bioid' ) . '</a>' );
		return $links;
	}
);

function bioid_render_settings_page() {
	if ( ! current_user_can( 'manage_options' ) ) {
		return;
	}
	$settings = bioid_settings();
	$source   = bioid_client_secret_source();
	$locked   = bioid_locked_settings();
	$grants   = bioid_role_grants();
	?>
	<div class="wrap">
		<h1><?php esc_html_e( 'BioID fingerprint', 'bioid' ); ?></h1>
		<?php if ( ! bioid_bundle_present() ) : ?>
			<div class="notice notice-error"><p><?php esc_html_e( 'The element bundle (assets/bioid-elements.js) is missing: install the plugin from the zip that npm run pack:wordpress writes.', 'bioid' ); ?></p></div>
		<?php endif; ?>
		<?php settings_errors( BIOID_SETTINGS_OPTION ); ?>
		<?php foreach ( bioid_config_problems() as $key => $problem ) : ?>
			<div class="notice notice-error bioid-config-problem" data-field="<?php echo esc_attr( $key ); ?>"><p><?php echo esc_html( $problem ); ?> <?php esc_html_e( 'No token is issued until this is fixed.', 'bioid' ); ?></p></div>
		<?php endforeach; ?>
		<p><?php esc_html_e( 'Where the fingerprint elements on this site send their requests, and the machine identity this site uses to get tokens for the users you allow below. Blocks, the [bioid] shortcode and pasted tags all use these settings.', 'bioid' ); ?></p>
		<form method="post" action="options.php" autocomplete="off">
			<?php settings_fields( 'bioid' ); ?>
			<table class="form-table" role="presentation">
				<?php foreach ( bioid_setting_fields() as $key => $field ) : ?>
					<?php $id = 'bioid-' . str_replace( '_', '-', $key ); ?>
					<tr>
						<th scope="row"><label for="<?php echo esc_attr( $id ); ?>"><?php echo esc_html( $field['label'] ); ?></label></th>
						<td>
							<?php if ( 'language' === $key ) : ?>
								<select id="<?php echo esc_attr( $id ); ?>" name="<?php echo esc_attr( BIOID_SETTINGS_OPTION . '[' . $key . ']' ); ?>">
									<?php foreach ( BIOID_LANGUAGES as $language ) : ?>
										<option value="<?php echo esc_attr( $language ); ?>" <?php selected( $settings[ $key ], $language ); ?>><?php echo esc_html( '' === $language ? __( 'The page\'s language', 'bioid' ) : $language ); ?></option>
									<?php endforeach; ?>
								</select>
							<?php elseif ( isset( $locked[ $key ] ) ) : ?>
								<?php // No name: the form does not send it, and bioid_sanitize_settings ignores it if sent. ?>
								<input type="text" class="regular-text" id="<?php echo esc_attr( $id ); ?>" value="<?php echo esc_attr( $settings[ $key ] ); ?>" readonly>
								<p class="bioid-locked"><strong>
								<?php
								/* translators: %s: constant name */
								echo esc_html( sprintf( __( 'Set in wp-config.php (%s), with the client secret; this site cannot change it.', 'bioid' ), $locked[ $key ] ) );
								?>
								</strong></p>
							<?php else : ?>
								<input type="<?php echo ! empty( $field['url'] ) ? 'url' : 'text'; ?>" class="regular-text" id="<?php echo esc_attr( $id ); ?>" name="<?php echo esc_attr( BIOID_SETTINGS_OPTION . '[' . $key . ']' ); ?>" value="<?php echo esc_attr( $settings[ $key ] ); ?>">
							<?php endif; ?>
							<p class="description"><?php echo esc_html( $field['help'] ); ?></p>
						</td>
					</tr>
					<?php if ( 'client_id' === $key ) : ?>
						<tr>
							<th scope="row"><label for="bioid-client-secret"><?php esc_html_e( 'Client secret', 'bioid' ); ?></label></th>
							<td>
								<?php if ( 'constant' === $source ) : ?>
									<p id="bioid-client-secret" class="bioid-secret-state"><strong><?php esc_html_e( 'Set in wp-config.php (BIOID_CLIENT_SECRET).', 'bioid' ); ?></strong></p>
								<?php else : ?>
									<input type="password" class="regular-text" id="bioid-client-secret" name="<?php echo esc_attr( BIOID_SECRET_OPTION ); ?>" value="" autocomplete="new-password" placeholder="<?php echo esc_attr( 'option' === $source ? __( 'set: type a new one to replace it', 'bioid' ) : __( 'not set', 'bioid' ) ); ?>">
									<p class="bioid-secret-state"><strong><?php echo esc_html( 'option' === $source ? __( 'Set.', 'bioid' ) : __( 'Not set.', 'bioid' ) ); ?></strong>
										<?php esc_html_e( 'Stored on the server only; this page never shows it and no page or browser receives it. Leave the field empty to keep it.', 'bioid' ); ?></p>
									<?php if ( 'option' === $source ) : ?>
										<label><input type="checkbox" name="bioid_client_secret_remove" value="1"> <?php esc_html_e( 'Remove the stored secret', 'bioid' ); ?></label>
									<?php endif; ?>
									<p class="description"><?php esc_html_e( 'To keep it out of the database, define BIOID_CLIENT_SECRET in wp-config.php instead.', 'bioid' ); ?></p>
								<?php endif; ?>
							</td>
						</tr>
					<?php endif; ?>
				<?php endforeach; ?>
			</table>
			<h2 id="bioid-who"><?php esc_html_e( 'Who may use fingerprints', 'bioid' ); ?></h2>
			<div class="notice notice-warning inline bioid-token-warning"><p>
				<?php esc_html_e( 'The token this site hands out is your organisation\'s machine identity, not the user\'s. Whoever holds it can list any subject\'s enrollments, enroll a finger under any subject and verify as any subject. Grant it only to staff you trust.', 'bioid' ); ?>
				<?php esc_html_e( 'Bind the subject to the user on your server (confirm a verification with the subject your server expects, never one the browser sent). Where the middleware must know which user acts, use a per-user token (OAuth 2.0 token exchange, RFC 8693) instead of this broker.', 'bioid' ); ?>
			</p></div>
			<p><?php esc_html_e( 'No role has these until you tick it here. On multisite only members of this site get them.', 'bioid' ); ?></p>
			<?php $grants_locked = bioid_grants_need_network() && ! current_user_can( 'manage_network_options' ); ?>
			<?php if ( bioid_grants_need_network() ) : ?>
				<p class="bioid-grants-network"><strong>
					<?php
					echo esc_html(
						$grants_locked
							? __( 'The client secret is the network\'s (wp-config.php), so which roles of this site get its token is decided by a super admin of the network; this site cannot change it.', 'bioid' )
							: __( 'The client secret is the network\'s (wp-config.php): as a super admin you decide which roles of this site get its token; site administrators cannot change it.', 'bioid' )
					);
					?>
				</strong></p>
			<?php endif; ?>
			<table class="form-table bioid-roles" role="presentation">
				<?php foreach ( bioid_capabilities() as $cap => $label ) : ?>
					<tr>
						<th scope="row"><?php echo esc_html( $label ); ?><br><code><?php echo esc_html( $cap ); ?></code></th>
						<td><fieldset>
							<?php foreach ( wp_roles()->get_names() as $role => $role_name ) : ?>
								<label><input type="checkbox" <?php echo $grants_locked ? 'disabled' : 'name="' . esc_attr( BIOID_ROLE_CAPS_OPTION . '[' . $cap . '][]' ) . '"'; ?> value="<?php echo esc_attr( $role ); ?>" id="<?php echo esc_attr( 'bioid-cap-' . $cap . '-' . $role ); ?>" <?php checked( in_array( $role, $grants[ $cap ], true ) ); ?>> <?php echo esc_html( translate_user_role( $role_name ) ); ?></label><br>
							<?php endforeach; ?>
						</fieldset></td>
					</tr>
				<?php endforeach; ?>
			</table>
			<p class="description"><?php esc_html_e( 'The enroll element also needs a token: give enrolling staff both.', 'bioid' ); ?></p>
			<?php submit_button(); ?>
		</form>
		<h2><?php esc_html_e( 'Token broker', 'bioid' ); ?></h2>
		<p><?php esc_html_e( 'The elements on this site get their tokens here, with the WordPress login of a user granted bioid_use_biometrics:', 'bioid' ); ?> <code><?php echo esc_html( bioid_token_endpoint_url() ); ?></code></p>
		<p><?php esc_html_e( 'Check it from a terminal with: npx --yes bioid-broker check <that URL> (signed out it must answer 401).', 'bioid' ); ?></p>
	</div>
	<?php
}
