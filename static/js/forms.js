// Small form behaviours, kept out of the markup (the pages' CSP allows no
// inline handlers): a secret shown once is selected whole when focused, so
// it can be copied in one go.
document.addEventListener("focusin", (event) => {
  const field = event.target;
  if (field instanceof HTMLInputElement && field.classList.contains("secret")) {
    field.select();
  }
});
