// The broken solutions that stage authorization must fail, each saying so (helpers/scenarios.ts).
import { describe } from 'vitest';
import { scenarioTests } from './helpers/scenarios.ts';

describe('the grader on broken solutions at authorization', () => scenarioTests('authorization'));
