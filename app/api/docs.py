"""The API page (``/docs``): Swagger UI served from this app (static/vendor), no CDN and no inline script."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import HTMLResponse

router = APIRouter()

SWAGGER_UI = "/static/vendor/swagger-ui-5.35.0"  # copied from the npm package swagger-ui-dist@5.35.0
_PAGE = f"""<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Three Thirteen: HTTP API</title>
  <link rel="stylesheet" href="{SWAGGER_UI}/swagger-ui.css">
  <link rel="stylesheet" href="/static/css/api-docs.css">
  <script src="{SWAGGER_UI}/swagger-ui-bundle.js" defer></script>
  <script src="/static/js/api-docs.js" defer></script>
</head>
<body>
  <div id="swagger-ui" data-openapi-url="/openapi.json"></div>
  <noscript>The API page needs JavaScript; the schema itself is at <a href="/openapi.json">/openapi.json</a>.
  </noscript>
</body>
</html>
"""


@router.get("/docs", include_in_schema=False)
async def api_docs() -> HTMLResponse:
    return HTMLResponse(_PAGE)
