/**
 * Imported first by `npm start` (local/main.ts), before any AWS SDK client exists: the local
 * stack runs on Node 20, which the AWS SDK still supports until its releases of January 2027, but
 * its clients print a NodeVersionSupportWarning on first use (in this process and again in the
 * sandbox process, which inherits this environment). A newcomer reads it as an error before the
 * banner. AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED=true is the SDK's documented switch for
 * exactly that notice (aws/aws-sdk-js-v3 issue 7983); every other warning still prints. A value the
 * shell set wins. On AWS the functions run on Node 22, where the notice never fires.
 */
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
