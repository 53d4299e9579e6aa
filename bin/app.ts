/**
 * CDK app entry (`cdk.json` runs it with tsx). One environment-agnostic stack;
 * deployment knobs come from context (see lib/settings.ts), and the cdk-nag
 * AwsSolutions pack runs on every synth, so an unacknowledged finding fails
 * `cdk synth` and `cdk deploy` alike.
 */
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { VexdeskStack } from '../lib/vexdesk-stack';
import { settingsFromContext } from '../lib/settings';

const app = new App();
new VexdeskStack(app, 'Vexdesk', {
  description: 'Vexdesk: SBOMs, CVE scanning, VEX workflow and signed public disclosures',
  settings: settingsFromContext(app.node),
});
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
app.synth();
