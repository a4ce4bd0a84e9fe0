export * from './mailer';
export * from './smtp-mailer';
export * from './mail-catcher';
