import {
  AilRuntimeError,
  NONE,
  err,
  listFrom,
  ok,
  show,
  some,
  type BuiltinImpl,
  type Value,
} from '../../runtime/values.js';
import { str, truthy } from './common.js';

/** show, std/option, std/result and std/env (stdlib/catalogue/adts.ts). */

const ctorArg = (v: Value): Value => (v as { args: Value[] }).args[0]!;
const ctorName = (v: Value): string => (v as { name: string }).name;

export const ADT_IMPLS: Record<string, BuiltinImpl> = {
  'std/option.map': ([f, o], rt) =>
    ctorName(o!) === 'Some' ? some(rt.apply(f!, [ctorArg(o!)])) : NONE,
  'std/option.flatMap': ([f, o], rt) =>
    ctorName(o!) === 'Some' ? rt.apply(f!, [ctorArg(o!)]) : NONE,
  'std/option.getOrElse': ([o, d]) => (ctorName(o!) === 'Some' ? ctorArg(o!) : d!),
  'std/option.isSome': ([o]) => ctorName(o!) === 'Some',
  'std/option.isNone': ([o]) => ctorName(o!) === 'None',
  'std/option.filter': ([p, o], rt) =>
    ctorName(o!) === 'Some' && truthy(rt, p!, ctorArg(o!)) ? o! : NONE,
  'std/result.map': ([f, r], rt) => (ctorName(r!) === 'Ok' ? ok(rt.apply(f!, [ctorArg(r!)])) : r!),
  'std/result.mapErr': ([f, r], rt) =>
    ctorName(r!) === 'Err' ? err(rt.apply(f!, [ctorArg(r!)])) : r!,
  'std/result.flatMap': ([f, r], rt) => (ctorName(r!) === 'Ok' ? rt.apply(f!, [ctorArg(r!)]) : r!),
  'std/result.isOk': ([r]) => ctorName(r!) === 'Ok',
  'std/result.isErr': ([r]) => ctorName(r!) === 'Err',
  'std/result.unwrap': ([r]) => {
    if (ctorName(r!) === 'Ok') return ctorArg(r!);
    throw new AilRuntimeError(`unwrap: called on ${show(r!)}`);
  },
  'std/env.getArgs': (_a, rt) => (rt.host.charge('Env'), listFrom([...rt.host.args])),
  // The real std/env: Result[string, EnvError], Err(NotFound(text)) for an unset variable (the
  // run's minimal environment has no allowlist, so NotAllowed never arises here).
  _env_getEnv: ([n], rt) => {
    rt.host.charge('Env');
    const name = str(n!);
    const v = rt.host.env.get(name);
    return v === undefined
      ? err({
          k: 'ctor',
          name: 'NotFound',
          args: [`environment variable ${JSON.stringify(name)} not found`],
        })
      : ok(v);
  },
  'std/env.getEnvOr': ([n, d], rt) => (rt.host.charge('Env'), rt.host.env.get(str(n!)) ?? str(d!)),
  _env_hasEnv: ([n], rt) => (rt.host.charge('Env'), rt.host.env.has(str(n!))),
  show: ([x]) => show(x!),
};
