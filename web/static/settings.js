// Settings pages: the only script. Copy buttons (data-copy-target names the element whose text to
// copy), the one-step media upload (form[data-one-step]) and the upload's last step, and the
// browser's time zone (the sp_tz cookie: the zone pages use until the person chooses one). Pages
// work without it (in UTC, until a zone is chosen).

/** The browser's IANA zone as a cookie the server reads on the next page (lib/web/cookies.ts readTimeZoneCookie). */
function rememberBrowserZone() {
  let zone;
  try {
    zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  } catch {
    return;
  }
  if (!zone || !/^[A-Za-z][A-Za-z0-9_+\-/]{0,63}$/.test(zone)) return;
  const secure = location.protocol === 'https:' ? '; Secure' : '';
  document.cookie = `sp_tz=${zone}; Path=/settings; Max-Age=31536000; SameSite=Lax${secure}`;
  // The Calendar's picker starts at the browser's zone while the person has not chosen one.
  for (const select of document.querySelectorAll('select[data-browser-zone]')) {
    if (select.getAttribute('data-browser-zone') === 'use' && [...select.options].some((option) => option.value === zone)) select.value = zone;
  }
}

/** The media upload in one step: the type comes from the chosen file (lib/web/pages/media-page.ts chooseFilePage). */
function oneStepUpload(form) {
  const input = form.querySelector('input[type="file"]');
  const status = form.querySelector('#upload-status');
  const types = [...form.querySelectorAll('select[name="contentType"] option')].map((option) => option.value);
  for (const part of form.querySelectorAll('[data-with-script]')) part.hidden = false;
  for (const part of form.querySelectorAll('[data-without-script]')) part.remove();
  input.required = true;
  const say = (text) => {
    status.textContent = text;
  };
  // A new choice starts afresh: the last file's refusal no longer applies.
  input.addEventListener('change', () => say(''));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    say('');
    const file = input.files[0];
    if (!file) return say('Choose a file first.');
    if (!types.includes(file.type)) return say(`“${file.name}” is not a kind of file that can be posted. ${document.getElementById('accepted').textContent}`);
    const button = form.querySelector('button[type="submit"]');
    button.disabled = true;
    try {
      // The presigned POST for this file's type, name and size (the server checks all three).
      const body = new URLSearchParams({ _csrf: form.elements._csrf.value, contentType: file.type, fileName: file.name, sizeBytes: String(file.size) });
      const response = await fetch(form.action, { method: 'POST', body, credentials: 'same-origin' });
      const page = new DOMParser().parseFromString(await response.text(), 'text/html');
      const upload = page.querySelector('form.upload-form');
      if (!response.ok || !upload) {
        say(page.querySelector('.notice.error')?.textContent ?? 'The upload could not start. Try again in a moment.');
        return;
      }
      // The storage form: its fields first, the file last (storage reads the fields before the file).
      const send = document.createElement('form');
      send.method = 'post';
      send.action = upload.getAttribute('action');
      send.enctype = 'multipart/form-data';
      send.hidden = true;
      for (const field of upload.querySelectorAll('input[type="hidden"]')) send.append(field.cloneNode());
      input.name = 'file';
      send.append(input);
      document.body.append(send);
      say('');
      status.classList.remove('error');
      send.submit();
    } catch {
      say('The upload could not start. Check your connection and try again.');
    } finally {
      button.disabled = false;
    }
  });
}

document.addEventListener('DOMContentLoaded', () => {
  rememberBrowserZone();
  for (const form of document.querySelectorAll('form[data-one-step]')) oneStepUpload(form);
  // After an upload the file is added to the library at once (the button is there without scripts).
  for (const form of document.querySelectorAll('form[data-autosubmit]')) form.requestSubmit();
  for (const button of document.querySelectorAll('button[data-copy-target]')) {
    button.hidden = false;
    button.addEventListener('click', async () => {
      const target = document.getElementById(button.getAttribute('data-copy-target'));
      if (!target) return;
      const text = 'value' in target ? target.value : target.textContent;
      const status = document.getElementById(`${button.getAttribute('data-copy-target')}-status`);
      try {
        await navigator.clipboard.writeText(text.trim());
        if (status) status.textContent = 'Copied.';
      } catch {
        // Clipboard refused (no permission, insecure origin): select the text so Ctrl+C works.
        if (typeof target.select === 'function') target.select();
        if (status) status.textContent = 'Select it and copy it yourself.';
      }
    });
  }
});
