// The API page (/docs): start Swagger UI (static/vendor) on this server's OpenAPI schema.
// A file of its own, not an inline script, so the page runs under the server's Content-Security-Policy.
const root = document.getElementById('swagger-ui');
window.SwaggerUIBundle({
  url: root.dataset.openapiUrl,
  domNode: root,
  // No deep links: they put a link inside each operation's toggle button (a nested control, axe-core).
  deepLinking: false,
  presets: [window.SwaggerUIBundle.presets.apis],
  layout: 'BaseLayout',
  validatorUrl: null, // no badge from validator.swagger.io (another origin, and it would see the URL)
});
