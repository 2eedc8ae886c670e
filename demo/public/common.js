// Shared by every demo page (a classic script; CSP allows only same-origin scripts):
//  - keeps the subject id input and the elements' subject-id attributes in sync;
//  - logs every bio-* event in the event log (details only: the elements never put a token in an event);
//  - on sign-out, clears the page's broker tokens (clearBrokerTokens), so a page the browser restores from
//    its back/forward cache cannot use the signed-out session's token;
//  - drives the simulator panel: finger on the sensor, plug/unplug, workstation online/offline, and the
//    test capture (through the SDK's reader.testCapture(), shown as an image).
(function () {
  'use strict';

  function $(id) {
    return document.getElementById(id);
  }

  // --- subject id ---
  var subject = $('subject');
  function syncSubject() {
    document.querySelectorAll('[data-subject]').forEach(function (el) {
      el.setAttribute('subject-id', subject.value.trim());
    });
  }
  if (subject) {
    subject.addEventListener('input', syncSubject);
    syncSubject();
  }

  // --- event log ---
  var log = $('event-log');
  function describe(detail) {
    try {
      return JSON.stringify(detail);
    } catch (e) {
      return String(detail);
    }
  }
  ['bio-start', 'bio-progress', 'bio-result', 'bio-error', 'bio-status'].forEach(function (type) {
    document.addEventListener(type, function (event) {
      if (!log) return;
      var item = document.createElement('li');
      item.className = 'log-' + type;
      var time = new Date().toLocaleTimeString();
      var source = event.target && event.target.tagName ? event.target.tagName.toLowerCase() : 'document';
      item.textContent = time + ' ' + source + ' ' + type + ' ' + describe(event.detail);
      log.prepend(item);
      while (log.children.length > 200) log.lastElementChild.remove();
    });
  });

  // --- sign-out ---
  var signout = document.querySelector('form.signout');
  if (signout) {
    signout.addEventListener('submit', function () {
      if (window.BioIDSDK) window.BioIDSDK.clearBrokerTokens();
    });
  }

  // --- simulator panel ---
  var panel = $('simulator');
  if (!panel) return;
  var service = panel.getAttribute('data-local-service');
  var message = $('sim-message');
  function say(text) {
    if (message) message.textContent = text;
  }
  function control(path, body) {
    return fetch(service + '/sim/' + path, {
      method: path === 'state' ? 'GET' : 'POST',
      headers: path === 'state' ? {} : { 'Content-Type': 'application/json' },
      body: path === 'state' ? undefined : JSON.stringify(body),
    }).then(function (r) {
      return r.json().then(function (json) {
        if (!r.ok) throw new Error(json.message || 'HTTP ' + r.status);
        return json;
      });
    });
  }
  function show(state) {
    var select = $('sim-finger');
    if (select.options.length <= 1) {
      state.fingers.forEach(function (f) {
        var option = document.createElement('option');
        option.value = f.id;
        option.textContent = f.label;
        select.append(option);
      });
    }
    select.value = state.finger || '';
    $('sim-device').checked = state.devices.length > 0 && state.devices[0].connected;
    $('sim-online').checked = state.online;
    panel.setAttribute('data-ready', '');
  }
  function report(promise, text) {
    return promise.then(
      function (state) {
        show(state);
        if (text) say(text);
      },
      function (error) {
        say('Simulator: ' + error.message);
      },
    );
  }
  report(control('state'));
  $('sim-finger').addEventListener('change', function (e) {
    var value = e.target.value || null;
    report(
      control('finger', { finger: value }),
      value ? 'Finger on the sensor: ' + e.target.selectedOptions[0].textContent : 'No finger on the sensor.',
    );
  });
  $('sim-device').addEventListener('change', function (e) {
    report(control('device', { connected: e.target.checked }), e.target.checked ? 'Reader plugged in.' : 'Reader unplugged.');
  });
  $('sim-online').addEventListener('change', function (e) {
    report(control('workstation', { online: e.target.checked }), e.target.checked ? 'Workstation online.' : 'Workstation offline.');
  });

  // Test capture through the SDK: discovery via /status, then /test-capture on the local service.
  $('sim-test-capture').addEventListener('click', function () {
    var sdk = window.BioIDSDK;
    if (!sdk) {
      say('The element bundle did not load.');
      return;
    }
    var reader = sdk.createFingerprintReader({
      middlewareUrl: document.querySelector('[middleware-url]').getAttribute('middleware-url'),
      localServiceUrl: service,
      getToken: function () {
        return Promise.reject(new Error('a test capture needs no token'));
      },
    });
    say('Capturing…');
    reader
      .testCapture()
      .then(
        function (result) {
          $('sim-capture').hidden = false;
          if (result.image) $('sim-capture-image').src = result.image;
          $('sim-capture-quality').textContent = 'Quality ' + result.quality + ' on ' + result.deviceId;
          say('Test capture done.');
        },
        function (error) {
          say('Test capture failed: ' + error.message);
        },
      )
      .finally(function () {
        reader.close();
      });
  });
})();
