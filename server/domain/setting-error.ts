// A setting's text that does not parse (a fee schedule, a list of holidays, a weekend): the message names the
// part that is wrong, and server/config.ts puts the variable's name in front of it.

export class SettingError extends Error {}
