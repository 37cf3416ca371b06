import { area, type BuiltinSpec } from './area.js';

/**
 * std/json, std/clock and std/net (ailang.md §2.3). `encode` / `decode` wrap the real registry's
 * `_json_encode` / `_json_decode`; the constructors and accessors are written in AILANG there
 * (exports only here). std/clock wraps `_clock_now` / `_clock_sleep`; std/net's `httpRequest`
 * wraps `_net_httpRequest`, and `httpGet` / `httpPost` are written over it.
 */
export const SERVICES: readonly BuiltinSpec[] = [
  ...area('std/json', [
    [
      'encode',
      '_json_encode',
      'obj',
      '(Json) -> string',
      'Encode a Json value as compact JSON text',
    ],
    [
      'decode',
      '_json_decode',
      's',
      '(string) -> Result[Json, string]',
      'Decode JSON text into a Json value, or Err(message)',
    ],
    ['jn', null, '', '() -> Json', 'JNull'],
    ['jb', null, 'b', '(bool) -> Json', 'JBool(b)'],
    ['jnum', null, 'x', '(float) -> Json', 'JNumber(x)'],
    ['js', null, 's', '(string) -> Json', 'JString(s)'],
    ['ja', null, 'xs', '([Json]) -> Json', 'JArray(xs)'],
    ['jo', null, 'kvs', '([{key: string, value: Json}]) -> Json', 'JObject(kvs)'],
    [
      'kv',
      null,
      'k,v',
      '(string, Json) -> {key: string, value: Json}',
      'One key/value pair of an object',
    ],
    [
      'get',
      null,
      'obj,key',
      '(Json, string) -> Option[Json]',
      'The value of the first pair with this key, None for a non-object',
    ],
    ['has', null, 'obj,key', '(Json, string) -> bool', 'True when get finds the key'],
    ['getOr', null, 'obj,key,default', '(Json, string, Json) -> Json', 'get with a fallback'],
    ['asString', null, 'j', '(Json) -> Option[string]', 'The string inside JString'],
    ['asNumber', null, 'j', '(Json) -> Option[float]', 'The number inside JNumber'],
    ['asBool', null, 'j', '(Json) -> Option[bool]', 'The bool inside JBool'],
    ['asArray', null, 'j', '(Json) -> Option[[Json]]', 'The items inside JArray'],
    [
      'asObject',
      null,
      'j',
      '(Json) -> Option[[{key: string, value: Json}]]',
      'The pairs inside JObject',
    ],
    [
      'keys',
      null,
      'obj',
      '(Json) -> [string]',
      'The keys of an object in source order ([] otherwise)',
    ],
    [
      'values',
      null,
      'obj',
      '(Json) -> [Json]',
      'The values of an object in source order ([] otherwise)',
    ],
    ['getString', null, 'obj,key', '(Json, string) -> Option[string]', 'get then asString'],
    ['getNumber', null, 'obj,key', '(Json, string) -> Option[float]', 'get then asNumber'],
    [
      'getInt',
      null,
      'obj,key',
      '(Json, string) -> Option[int]',
      'get then asNumber, truncated toward zero',
    ],
    ['getBool', null, 'obj,key', '(Json, string) -> Option[bool]', 'get then asBool'],
    ['getArray', null, 'obj,key', '(Json, string) -> Option[[Json]]', 'get then asArray'],
    [
      'getObject',
      null,
      'obj,key',
      '(Json, string) -> Option[Json]',
      'get (the nested value, whatever it is)',
    ],
  ]),
  ...area('std/clock', [
    ['now', '_clock_now', '', '() -> int ! {Clock}', 'Milliseconds since the Unix epoch'],
    [
      'sleep',
      '_clock_sleep',
      'ms',
      '(int) -> () ! {Clock}',
      'Pause for ms milliseconds (bounded by the run time limit)',
    ],
  ]),
  ...area('std/net', [
    [
      'httpRequest',
      '_net_httpRequest',
      'method,url,headers,body',
      '(string, string, [{name: string, value: string}], string) -> Result[HttpResponse, NetError] ! {Net}',
      'One HTTP request to an allowed endpoint; HTTP errors are Ok with their status',
    ],
    [
      'httpGet',
      null,
      'url',
      '(string) -> string ! {Net}',
      'GET a URL; the body, or an E_NET_… text on failure',
    ],
    [
      'httpPost',
      null,
      'url,body',
      '(string, string) -> string ! {Net}',
      'POST a JSON body to a URL; the response body, or an E_NET_… text',
    ],
  ]),
];
