import type { Pattern } from '../ast.js';
import { CompileError } from '../diagnostics.js';
import type { Token } from '../lexer.js';
import { TypeParser } from './types.js';

/**
 * Patterns (ailang.md §2.2 `pat`): wildcards, variables, literals, constructors, list patterns
 * with `...rest`, cons `x :: xs` and `::(x, xs)`, tuples and records.
 */
export class PatternParser extends TypeParser {
  protected pattern(): Pattern {
    const head = this.patternAtom();
    if (this.is('::')) {
      const pos = this.next().pos;
      return { k: 'pcons', head, tail: this.pattern(), pos };
    }
    return head;
  }

  protected patternAtom(): Pattern {
    const t = this.tok;
    const pos = t.pos;
    switch (t.kind) {
      case 'ident':
        this.next();
        return t.text === '_' ? { k: 'pwild', pos } : { k: 'pvar', name: t.text, pos };
      case 'int':
        this.next();
        return { k: 'pint', value: t.int!, pos };
      case 'float':
        this.next();
        return { k: 'pfloat', value: t.float!, pos };
      case 'string': {
        this.next();
        const parts = t.parts!;
        if (parts.length !== 1 || !('text' in parts[0]!)) {
          throw new CompileError(
            'PAR001',
            'a string pattern cannot contain ${…} interpolation',
            pos,
          );
        }
        return { k: 'pstr', value: parts[0].text, pos };
      }
      case 'upper': {
        this.next();
        const args: Pattern[] = [];
        if (this.accept('(')) {
          this.withNl(false, () => {
            if (!this.is(')')) {
              do args.push(this.pattern());
              while (this.accept(','));
            }
            this.expect(')', `to close the ${t.text} pattern`);
          });
        }
        return { k: 'pctor', name: t.text, args, pos };
      }
      case 'keyword':
        if (t.text === 'true' || t.text === 'false') {
          this.next();
          return { k: 'pbool', value: t.text === 'true', pos };
        }
        break;
      case 'op':
        return this.opPattern(t);
      default:
        break;
    }
    throw this.unexpected('a pattern');
  }

  protected opPattern(t: Token): Pattern {
    const pos = t.pos;
    if (t.text === '-' && (this.peek().kind === 'int' || this.peek().kind === 'float')) {
      this.next();
      const n = this.next();
      return n.kind === 'int'
        ? { k: 'pint', value: -n.int!, pos }
        : { k: 'pfloat', value: -n.float!, pos };
    }
    if (t.text === '(') {
      this.next();
      return this.withNl(false, () => {
        if (this.accept(')')) return { k: 'punit', pos } as Pattern;
        const items = [this.pattern()];
        while (this.accept(',')) items.push(this.pattern());
        this.expect(')', 'to close the pattern');
        return items.length === 1 ? items[0]! : ({ k: 'ptuple', items, pos } as Pattern);
      });
    }
    if (t.text === '[') {
      this.next();
      return this.withNl(false, () => {
        const items: Pattern[] = [];
        let rest: Pattern | null = null;
        while (!this.is(']')) {
          if (this.accept('...')) {
            rest = this.patternAtom();
            break;
          }
          items.push(this.pattern());
          if (!this.accept(',')) break;
        }
        this.expect(']', 'to close the list pattern');
        return { k: 'plist', items, rest, pos } as Pattern;
      });
    }
    if (t.text === '{') {
      this.next();
      return this.withNl(false, () => {
        const fields: { name: string; pat: Pattern }[] = [];
        let open = false;
        while (!this.is('}')) {
          if (this.accept('...')) {
            open = true;
            break;
          }
          const f = this.ident('a field name');
          const pat: Pattern = this.accept(':')
            ? this.pattern()
            : { k: 'pvar', name: f.text, pos: f.pos };
          fields.push({ name: f.text, pat });
          if (!this.accept(',')) break;
        }
        this.expect('}', 'to close the record pattern');
        return { k: 'precord', fields, open, pos } as Pattern;
      });
    }
    if (t.text === '::') {
      this.next();
      this.expect('(');
      const head = this.pattern();
      this.expect(',');
      const tail = this.pattern();
      this.expect(')');
      return { k: 'pcons', head, tail, pos };
    }
    throw this.unexpected('a pattern');
  }
}
