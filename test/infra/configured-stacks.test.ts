/**
 * The suites that synthesize the stack with settings of their own (a console build, sign-in
 * issuers, retention and log level, the background functions), gathered in one test file: each
 * test file loads aws-cdk-lib and starts the template validator anew, which costs seconds. The
 * console suites share one synthesis (`sharedConsoleStack` in ./support/console-synth.ts). Each
 * suite lives in ./configured-stacks/, one subject per file.
 */
import './configured-stacks/console-hosting';
import './configured-stacks/console-deployment';
import './configured-stacks/sign-in';
import './configured-stacks/settings';
import './configured-stacks/background';
