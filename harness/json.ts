// A value of JSON, as the whole harness and the stages' contracts (harness/stages/) read it. It imports
// nothing: `export` publishes it beside the contracts, which import it (run/submission.ts).

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };
