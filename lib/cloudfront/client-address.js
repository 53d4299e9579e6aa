/*
 * CloudFront Function (runtime cloudfront-js-2.0) on the viewer requests of the API behaviours
 * (lib/console-hosting.ts). It writes the viewer's address into True-Client-IP, replacing any value
 * the viewer sent, so the API's web ACL counts each client by its own address
 * (lib/public-client-firewall.ts). X-Forwarded-For cannot serve: CloudFront appends the viewer's
 * address to the value the viewer sent, and WAF reads the first address it finds.
 */
function handler(event) {
  var request = event.request;
  request.headers['true-client-ip'] = { value: event.viewer.ip };
  return request;
}
