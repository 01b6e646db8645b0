/**
 * Sign-in for the settings web app on AWS, in two parts that live in different stacks:
 *
 * - SettingsUserPool (data stack): the Cognito user pool (e-mail sign-up with a verification code,
 *   password reset by e-mail, optional TOTP MFA, Cognito's own limits on failed sign-ins) and its
 *   managed login domain. The pool id is the OIDC issuer, so it stays with the data that outlives
 *   a redeploy: destroying and recreating the API stack keeps every settings user's identity.
 * - SettingsSignIn (API stack): the one app client of the settings app, a public client (no secret
 *   to keep in a Lambda), authorization code flow with PKCE, scopes openid and email, redirecting
 *   only to the settings callback. Its URLs are the API's, so it lives beside the API: the data
 *   stack never depends on the API stack.
 *
 * The settings functions discover the issuer (OIDC_ISSUER_URL) exactly as they discover the local provider.
 */
import { Duration, Fn, RemovalPolicy, Stack, Token, Validations } from 'aws-cdk-lib';
import type { UserPoolDomain } from 'aws-cdk-lib/aws-cognito';
import { AccountRecovery, CfnManagedLoginBranding, FeaturePlan, ManagedLoginVersion, Mfa, OAuthScope, UserPool, UserPoolClient } from 'aws-cdk-lib/aws-cognito';
import { Construct } from 'constructs';
import { domainPrefixStem } from '../stacks/deploy-settings.js';

export interface SettingsUserPoolProps {
  /** Prefix of the Cognito domain (<prefix>.auth.<region>.amazoncognito.com), unique per region across AWS. Default: `<stack name in kebab-case>-<account id>`. */
  domainPrefix?: string;
  /** Cognito's deletion protection on the pool (deploy-settings.ts `deletionProtection`). */
  deletionProtection: boolean;
}

export class SettingsUserPool extends Construct {
  readonly userPool: UserPool;
  readonly domain: UserPoolDomain;
  /** The prefix as deployed: a CloudFormation expression when it is the derived default of an environment-agnostic stack. */
  readonly domainPrefix: string;
  /** https://cognito-idp.<region>.amazonaws.com/<pool id>: the OIDC issuer. */
  readonly issuerUrl: string;

  constructor(scope: Construct, id: string, props: SettingsUserPoolProps) {
    super(scope, id);
    const stack = Stack.of(this);
    this.userPool = new UserPool(this, 'Users', {
      userPoolName: `${stack.stackName}-settings`,
      selfSignUpEnabled: true,
      signInAliases: { email: true },
      autoVerify: { email: true },
      standardAttributes: { email: { required: true, mutable: true } },
      passwordPolicy: { minLength: 10, requireLowercase: true, requireUppercase: true, requireDigits: true, requireSymbols: true, tempPasswordValidity: Duration.days(3) },
      accountRecovery: AccountRecovery.EMAIL_ONLY,
      featurePlan: FeaturePlan.ESSENTIALS,
      // Each user may add an authenticator app (TOTP); SMS would need an SNS origination setup and costs per message.
      mfa: Mfa.OPTIONAL,
      mfaSecondFactor: { otp: true, sms: false },
      deletionProtection: props.deletionProtection,
      // The users are customers: keep them if the stack goes or the pool is replaced, but not when
      // the pool's own first create is rolled back (RetainExceptOnCreate): it has no users yet.
      removalPolicy: RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
    });
    // The account id makes the default unique across AWS; the stack name keeps two deployments in
    // one account and region apart. An unresolved account (environment-agnostic synthesis) becomes
    // the deploying account through the AWS::AccountId pseudo parameter.
    this.domainPrefix = props.domainPrefix ?? (Token.isUnresolved(stack.account)
      ? Fn.join('-', [domainPrefixStem(stack.stackName), stack.account])
      : `${domainPrefixStem(stack.stackName)}-${stack.account}`);
    this.domain = this.userPool.addDomain('Domain', {
      cognitoDomain: { domainPrefix: this.domainPrefix },
      managedLoginVersion: ManagedLoginVersion.NEWER_MANAGED_LOGIN,
    });
    this.issuerUrl = `https://cognito-idp.${stack.region}.amazonaws.com/${this.userPool.userPoolId}`;

    Validations.of(this.userPool).acknowledge({
      id: 'AwsSolutions-COG2',
      reason: 'MFA is optional: each user may add an authenticator app (TOTP); requiring it would block the e-mail-only sign-up the settings app offers.',
    });
    Validations.of(this.userPool).acknowledge({
      id: 'AwsSolutions-COG8',
      reason: 'Essentials covers e-mail sign-up, verification, password reset, TOTP MFA and managed login; Plus adds threat protection per monthly active user with no free tier (docs/deploy.md, "Settings sign-in").',
    });
    Validations.of(this.userPool).acknowledge({
      id: 'AwsSolutions-COG3',
      reason: 'Threat protection (advanced security) needs the Plus feature plan, a per-user cost; failed sign-ins are limited by Cognito itself on Essentials.',
    });
  }
}

export interface SettingsSignInProps {
  /** The pool and domain, from the data stack. */
  pool: SettingsUserPool;
  /** https://host/settings/auth/callback */
  callbackUrl: string;
  /** Where Cognito's logout may send the browser back to. */
  signedOutUrl: string;
}

export class SettingsSignIn extends Construct {
  readonly userPool: UserPool;
  readonly domain: UserPoolDomain;
  readonly client: UserPoolClient;
  /** https://cognito-idp.<region>.amazonaws.com/<pool id>: the OIDC issuer. */
  readonly issuerUrl: string;

  constructor(scope: Construct, id: string, props: SettingsSignInProps) {
    super(scope, id);
    this.userPool = props.pool.userPool;
    this.domain = props.pool.domain;
    this.issuerUrl = props.pool.issuerUrl;
    // A client of a pool in another stack: created here (not with pool.addClient, which would put
    // it in the pool's stack), so its URLs can be the API's own.
    this.client = new UserPoolClient(this, 'SettingsApp', {
      userPool: this.userPool,
      userPoolClientName: 'settings',
      generateSecret: false,
      authFlows: {},
      oAuth: {
        flows: { authorizationCodeGrant: true },
        scopes: [OAuthScope.OPENID, OAuthScope.EMAIL],
        callbackUrls: [props.callbackUrl],
        logoutUrls: [props.signedOutUrl],
      },
      preventUserExistenceErrors: true,
      idTokenValidity: Duration.hours(1),
      accessTokenValidity: Duration.hours(1),
      refreshTokenValidity: Duration.days(1),
    });
    // Managed login needs a style per client; Cognito's default one.
    new CfnManagedLoginBranding(this, 'Branding', {
      userPoolId: this.userPool.userPoolId,
      clientId: this.client.userPoolClientId,
      useCognitoProvidedValues: true,
    });
  }
}
