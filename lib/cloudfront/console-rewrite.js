/*
 * CloudFront Function (runtime cloudfront-js-2.0) on the viewer requests of the console's
 * default behaviour (lib/console-hosting.ts, docs/console-hosting.md). The console is a
 * single-page app: a console route such as /products/{id} or the public disclosure page
 * /d/{slug} has no object in the bucket, so it is served index.html and the app's router
 * takes over. A path whose last segment has a dot names a file (index.html, the hashed
 * files under /assets/, favicon.svg) and goes to the bucket as asked, so a missing file
 * stays a 404 instead of turning into index.html. /api/* and /.well-known/* never reach
 * this function: their behaviours route them to API Gateway, whose errors pass through.
 */
function handler(event) {
  var request = event.request;
  var uri = request.uri;
  var lastSegment = uri.substring(uri.lastIndexOf('/') + 1);
  if (lastSegment.indexOf('.') === -1) request.uri = '/index.html';
  return request;
}
