// The broken solutions that stage config-and-framing must fail, each saying so (helpers/scenarios.ts).
import { describe } from 'vitest';
import { scenarioTests } from './helpers/scenarios.ts';

describe('the grader on broken solutions at config-and-framing', () => scenarioTests('config-and-framing'));
