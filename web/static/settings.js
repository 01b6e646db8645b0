// Settings pages: the only script. Copy buttons (data-copy-target names the element whose text to
// copy) and a confirmation for forms marked data-confirm. Pages work without it.
document.addEventListener('DOMContentLoaded', () => {
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
