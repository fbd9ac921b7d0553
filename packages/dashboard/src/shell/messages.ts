// The notices the login screen and the enrolment shell show.
export const MESSAGES = {
  expired: 'Your session has expired. Please log in again.',
  unauthorized: 'Your session has ended. Please log in again.',
  loggedOut: 'You have logged out.',
  enrolment:
    'Your organization requires a second factor for every member. Add an authenticator app or a passkey below; the rest of the dashboard opens as soon as you have one.',
  consent:
    'An app is asking to use one of your agent wallets. Log in to see which app, and to allow or deny it.',
};
