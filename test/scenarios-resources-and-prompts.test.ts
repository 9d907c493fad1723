// The broken solutions that stage resources-and-prompts must fail, each saying so (helpers/scenarios.ts).
import { describe } from 'vitest';
import { scenarioTests } from './helpers/scenarios.ts';

describe('the grader on broken solutions at resources-and-prompts', () => scenarioTests('resources-and-prompts'));
