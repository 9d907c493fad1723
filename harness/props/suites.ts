// The property suites by name, as course.yaml's `properties:` names them. A later stage adds
// its suite (e.g. `translate`) in a module of its own and lists it here.
import { framingSuite } from './framing.ts';
import type { PropertySuite } from './suite.ts';

export const SUITES: Readonly<Record<string, PropertySuite>> = {
  [framingSuite.name]: framingSuite,
};

export function findSuite(name: string): PropertySuite | undefined {
  return Object.hasOwn(SUITES, name) ? SUITES[name] : undefined;
}
