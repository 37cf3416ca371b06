import { area, type BuiltinSpec } from './area.js';

/**
 * `show`, std/option, std/result and std/env (ailang.md §2.3). The option and result helpers are
 * written in AILANG in the real library (exports only); std/env's `getEnv` and `hasEnv` wrap
 * `_env_getEnv` and `_env_hasEnv`.
 */
export const ADTS: readonly BuiltinSpec[] = [
  ...area('prelude', [
    [
      'show',
      'show',
      'x',
      '(a) -> string',
      'Render any value as text (strings unquoted, records sorted by field)',
    ],
  ]),
  ...area('std/option', [
    ['map', null, 'f,opt', '((a) -> b, Option[a]) -> Option[b]', 'Apply f inside Some'],
    [
      'flatMap',
      null,
      'f,opt',
      '((a) -> Option[b], Option[a]) -> Option[b]',
      'Chain an Option-returning function',
    ],
    [
      'getOrElse',
      null,
      'opt,default',
      '(Option[a], a) -> a',
      'The value inside Some, or the default',
    ],
    ['isSome', null, 'opt', '(Option[a]) -> bool', 'True for Some'],
    ['isNone', null, 'opt', '(Option[a]) -> bool', 'True for None'],
    [
      'filter',
      null,
      'pred,opt',
      '((a) -> bool, Option[a]) -> Option[a]',
      'Keep Some only when pred holds',
    ],
  ]),
  ...area('std/result', [
    ['map', null, 'f,r', '((a) -> b, Result[a, e]) -> Result[b, e]', 'Apply f inside Ok'],
    ['mapErr', null, 'f,r', '((e1) -> e2, Result[a, e1]) -> Result[a, e2]', 'Apply f inside Err'],
    [
      'flatMap',
      null,
      'f,r',
      '((a) -> Result[b, e], Result[a, e]) -> Result[b, e]',
      'Chain a Result-returning function',
    ],
    ['isOk', null, 'r', '(Result[a, e]) -> bool', 'True for Ok'],
    ['isErr', null, 'r', '(Result[a, e]) -> bool', 'True for Err'],
    ['unwrap', null, 'r', '(Result[a, e]) -> a', 'The value inside Ok; a runtime error for Err'],
  ]),
  ...area('std/env', [
    ['getArgs', null, '', '() -> [string] ! {Env}', 'The program arguments given after the file'],
    [
      'getEnv',
      '_env_getEnv',
      'name',
      '(string) -> Result[string, EnvError] ! {Env}',
      "A variable of the run's minimal environment, or Err(NotFound(message))",
    ],
    [
      'getEnvOr',
      null,
      'name,defaultValue',
      '(string, string) -> string ! {Env}',
      'getEnv with a fallback',
    ],
    [
      'hasEnv',
      '_env_hasEnv',
      'name',
      '(string) -> bool ! {Env}',
      "True when the run's minimal environment sets the variable",
    ],
  ]),
];
