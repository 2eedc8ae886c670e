// The legacy jQuery page: delegated handlers on document, as an older app wires widgets it did not render.
// Custom events bubble out of the elements (composed: true), so jQuery sees them like any DOM event.
/* global jQuery */
jQuery(function ($) {
  'use strict';
  function row(operation, subject, outcome) {
    $('<tr>').append($('<td>').text(operation), $('<td>').text(subject), $('<td>').text(outcome)).prependTo('#jquery-results');
  }
  $(document).on('bio-result', 'bio-verify', function (event) {
    var result = event.originalEvent.detail.result;
    var verdict = result.match ? 'Match' : 'No match';
    $('#jquery-verdict')
      .text('jQuery saw bio-result from bio-verify: ' + verdict + ' for ' + result.subjectId + ' (score ' + result.score + ')')
      .toggleClass('ok', result.match)
      .toggleClass('bad', !result.match);
    row('verify', result.subjectId, verdict + ' (' + result.score + ')');
  });
  $(document).on('bio-result', 'bio-enroll', function (event) {
    var result = event.originalEvent.detail.result;
    row('enroll', result.subjectId, 'Enrolled (quality ' + result.quality + ')');
  });
  $(document).on('bio-result', 'bio-search', function (event) {
    var candidates = event.originalEvent.detail.result.candidates;
    row(
      'search',
      candidates.length ? candidates[0].subjectId : '—',
      candidates.length ? candidates.length + ' candidate(s)' : 'No candidate',
    );
  });
  $(document).on('bio-error', 'bio-enroll, bio-verify, bio-search', function (event) {
    var detail = event.originalEvent.detail;
    row(detail.operation, $(this).attr('subject-id') || '—', 'Error: ' + detail.message);
  });
});
