// The password rules moved to src/accounts/password.ts (the admin API hashes passwords too); this
// name stays for the dashboard's existing importers.
export { DUMMY_HASH, generatePassword, hashPassword, verifyPassword } from '../accounts/password.ts';
