/**
 * The blocks in the block editor, with the editor's own globals (wp.blocks, wp.element, wp.blockEditor,
 * wp.components, wp.i18n): no build step. Each block is rendered on the server (save returns null, the
 * post stores the block comment with its attributes); in the editor it shows a placeholder, and its
 * attributes are edited in the block sidebar. window.bioidBlocks (from includes/blocks.php) lists the
 * blocks the server registered and their fields.
 */
(function (wp, config) {
  'use strict';
  if (!wp || !config) return;
  var el = wp.element.createElement;
  var __ = wp.i18n.__;
  var sprintf = wp.i18n.sprintf;
  var InspectorControls = wp.blockEditor.InspectorControls;
  var useBlockProps = wp.blockEditor.useBlockProps;
  var PanelBody = wp.components.PanelBody;
  var TextControl = wp.components.TextControl;
  var ToggleControl = wp.components.ToggleControl;
  var Placeholder = wp.components.Placeholder;

  /** One sidebar control per field: text, number or toggle. */
  function control(field, props) {
    var value = props.attributes[field.name];
    var set = function (next) {
      var change = {};
      change[field.name] = next;
      props.setAttributes(change);
    };
    if (field.type === 'boolean') {
      return el(ToggleControl, { key: field.name, label: field.label, help: field.help, checked: Boolean(value), onChange: set });
    }
    if (field.type === 'number') {
      return el(TextControl, {
        key: field.name,
        type: 'number',
        label: field.label,
        help: field.help,
        value: value === undefined ? '' : String(value),
        onChange: function (text) {
          var number = parseInt(text, 10);
          set(text === '' || isNaN(number) ? undefined : number);
        },
      });
    }
    return el(TextControl, { key: field.name, label: field.label, help: field.help, value: value || '', onChange: set });
  }

  /** What the canvas says: the element and the values that decide what it does. */
  function summary(block, attributes) {
    var parts = block.fields
      .filter(function (field) {
        var value = attributes[field.name];
        return value !== undefined && value !== '' && value !== false;
      })
      .map(function (field) {
        return field.label + ': ' + (field.type === 'boolean' ? __('yes', 'bioid') : String(attributes[field.name]));
      });
    return parts.length ? parts.join(' · ') : __('Set its options in the block sidebar.', 'bioid');
  }

  config.blocks.forEach(function (block) {
    wp.blocks.registerBlockType(block.name, {
      edit: function (props) {
        var blockProps = useBlockProps();
        var needsSubject = block.fields.some(function (field) {
          return field.name === 'subjectId';
        });
        var missing = needsSubject && !props.attributes.subjectId;
        return el(
          'div',
          blockProps,
          el(
            InspectorControls,
            null,
            el(
              PanelBody,
              { title: __('Fingerprint', 'bioid'), initialOpen: true },
              block.fields.map(function (field) {
                return control(field, props);
              }),
            ),
          ),
          el(
            Placeholder,
            {
              icon: 'shield',
              label: block.title,
              instructions: missing
                ? __('Give the subject id in the block sidebar: whose fingerprint this is.', 'bioid')
                : summary(block, props.attributes),
              className: 'bioid-block-placeholder',
            },
            el('code', null, sprintf('<%s>', block.tag)),
            config.configured ? null : el('p', null, __('The site is not configured yet: Settings > BioID.', 'bioid')),
          ),
        );
      },
      save: function () {
        return null;
      },
    });
  });
})(window.wp, window.bioidBlocks);
