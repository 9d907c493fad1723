// The HTML report: one self-contained page made from a results report (every stage and check, the
// styled difference, hints, the player's diagnoses, stderr, and a sequence diagram of each played
// session), and a page for one session alone (`replay --html`). Inline CSS and one line of inline
// JS, nothing fetched. Every string from a report is escaped by page.ts's `html` template (the only
// way text gets into the page), under a Content-Security-Policy that admits nothing but the page.
import { SEALED_NOTE } from '../grade/sealed-verdict.ts';
import {
  exchangeStep,
  isObject,
  moreDiagnosesLine,
  responseOutcome,
  type Diagnosis,
  type Exchange,
  type ExchangeStep,
  type Json,
  type PlayReport,
} from '../cassette/index.ts';
import type { Advice, Hint, StyledLine } from '../run/verdict.ts';
import { clip } from '../terminal-text.ts';
import type { CheckReport, SessionReport, KeptText, ResultsReport, StageReport } from './model.ts';
import { FIRST_FAILURE_ID, html, join, page, type Html } from './page.ts';

export { FIRST_FAILURE_ID };
/** Characters of a message quoted in an arrow's label. */
const LABEL_CHARS = 80;

// ---------------------------------------------------------------------------- the two pages

/** `live`: the page watch mode serves, which reloads after each grading (live-page.ts). */
export function toHtml(report: ResultsReport, { live = false }: { live?: boolean } = {}): string {
  const checks = report.stages.flatMap((stage) => stage.checks);
  const firstFailure = checks.find((check) => check.status !== 'pass');
  const title = `theinference: ${report.status}, ${report.counts.pass} of ${report.counts.total} checks pass`;
  // a hint is shown in full once; where the same mistake shows again, it points back to it
  const hinted = new Map<string, Shown>();
  return page(
    title,
    html`${reportHeader(report, title, firstFailure)}<main>${report.stages.map((stage) => stageSection(stage, firstFailure, hinted, report.sealed === true))}</main>`,
    { scroll: false, live },
  );
}

/** One played session alone (`theinference replay <cassette> --html <file>`): its diagnoses and its diagram. */
export function sessionHtml(report: PlayReport, cassette: string): string {
  const verdict = report.ok ? 'pass' : 'fail';
  const title = `theinference replay ${cassette}: ${report.ok ? 'the client followed the recording' : 'the client strayed from the recording'}`;
  const session: SessionReport = { endpoint: 'server', cassette, diagnoses: report.diagnoses, more: report.moreDiagnoses, exchange: report.exchange };
  return page(
    title,
    html`<header><h1><span class="badge status-${verdict}">${verdict}</span> ${title}</h1>
<p class="facts">${report.consumed} of ${report.expected} recorded client messages sent</p></header>
<main class="session">${protocolSection(session, false)}${sequenceDiagram(report.exchange, session, false, FIRST_FAILURE_ID)}</main>`,
  );
}

// ---------------------------------------------------------------------------- a results report

function reportHeader(report: ResultsReport, title: string, firstFailure: CheckReport | undefined): Html {
  const { counts, limits } = report;
  const tally = (['pass', 'fail', 'error', 'timeout', 'crash'] as const)
    .filter((status) => counts[status] > 0)
    .map((status) => html`<span class="count status-${status}">${counts[status]} ${status}</span> `);
  const facts = [
    `${report.grader.name} ${report.grader.version}`,
    `${report.points.earned} of ${report.points.possible} points`,
    `seed ${report.seed}`,
    report.shard && `shard ${report.shard.index} of ${report.shard.count}`,
    report.mergedShards && `merged shards ${report.mergedShards.join(', ')}`,
    `started ${report.startedAt}`,
    seconds(report.durationMs),
    `sandbox ${report.sandbox}`,
    `network ${limits.network}`,
    limits.timeoutMs !== null && `timeout ${seconds(limits.timeoutMs)}`,
    report.hiddenCases > 0 && `${report.hiddenCases} hidden cases`,
    report.generatedCases > 0 && `${report.generatedCases} generated cases`,
  ].filter((fact): fact is string => typeof fact === 'string');
  const { submission } = report;
  const notes = [
    ...(report.sealed ? [SEALED_NOTE] : []),
    ...report.problems,
    ...submission.missing.map((path) => `the submission has no ${path}`),
    ...submission.changedOutsideSrc.map((change) => `${change.path} ${change.change} outside src/ (not used)`),
    ...(submission.changesCut ? ['more changes outside src/ were not listed'] : []),
    ...submission.linksIgnored.map((path) => `${path}: a symbolic link, not copied`),
    ...submission.filesIgnored.map((file) => `${file.path}: ${file.why}, not copied`),
  ];
  return html`<header><h1><span class="badge status-${report.status}">${report.status}</span> ${title}</h1>
<p class="tally">${tally}<span class="count">${counts.total} checks</span>${firstFailure && html` · <a href="#${FIRST_FAILURE_ID}">the first failure: ${firstFailure.name}</a>`}</p>
<p class="facts">${facts.join(' · ')}</p>
<p class="facts">submission <code>${submission.path}</code></p>
${notes.length > 0 && html`<ul class="notes">${notes.map((note) => html`<li>${note}</li>`)}</ul>`}</header>`;
}

function stageSection(stage: StageReport, firstFailure: CheckReport | undefined, hinted: Map<string, Shown>, sealed: boolean): Html {
  const passed = stage.checks.filter((check) => check.status === 'pass').length;
  const points = `${stage.points.earned} of ${stage.points.possible} points`;
  const summary =
    stage.status === 'skipped'
      ? `not graded · ${points}`
      : `${passed} of ${stage.checks.length} checks pass · ${points}${sealed ? '' : ` · ${seconds(stage.durationMs)}`}`;
  return html`<section class="stage status-${stage.status}"><h2><span class="badge status-${stage.status}">${stage.status}</span> ${stage.slug} <span class="dim">· ${stage.title} · ${summary}</span></h2>
${stage.checks.map((check) => checkBlock(check, check === firstFailure, hinted, sealed))}</section>`;
}

function checkBlock(check: CheckReport, first: boolean, hinted: Map<string, Shown>, sealed: boolean): Html {
  const failed = check.status !== 'pass';
  const facts = [
    check.origin !== 'public' && `${check.origin} case`,
    check.infra && 'the grader could not run it',
    ...check.sessions.flatMap((session) =>
      session.cassette === null ? [] : [html`${check.sessions.length > 1 ? `${session.endpoint}: ` : ''}cassette <code>${session.cassette}</code>`],
    ),
    check.seed !== null && `seed ${check.seed}`,
  ].filter((fact) => fact !== false);
  // With the difference, hints and diagnoses drawn, the plain-text account repeats them: folded.
  const drawn = check.difference !== null || check.hints.length > 0 || check.sessions.some((session) => session.diagnoses.length > 0);
  const several = check.sessions.length > 1;
  const anchor = first ? FIRST_FAILURE_ID : `check-${check.id}`;
  return html`<details class="check status-${check.status}" data-check="${check.id}" id="${anchor}"${failed && html` open`}>
<summary><span class="badge status-${check.status}">${check.status}</span> <span class="name">${check.name}</span>${!sealed && html` <span class="dim">${seconds(check.durationMs)}</span>`}${failed && html` <span class="message">${check.message}</span>`}</summary>
<div class="body">
${facts.length > 0 && html`<p class="facts">${join(facts, ' · ')}</p>`}
${check.difference && html`<pre class="difference">${check.difference.lines.map(styledLine)}</pre>`}
${check.hints.length > 0 && html`<ul class="hints">${check.hints.map((hint) => hintItem(hint, { name: check.name, anchor }, hinted))}</ul>`}
${check.advice.length > 0 && html`<ul class="advice">${check.advice.map(adviceItem)}</ul>`}
${check.sessions.map((session) => protocolSection(session, several))}
${check.sessions.map((session) => session.exchange && sequenceDiagram(session.exchange, session, several))}
${keptText('stderr', check.stderr, failed)}
${keptText('stdout', check.output, false)}
${keptText('details', check.details, failed && !drawn, drawn ? 'everything as text' : 'details')}
</div></details>`;
}

function styledLine(line: StyledLine): Html {
  return html`${line.map((span) => (span.style ? html`<span class="${span.style}">${span.text}</span>` : html`${span.text}`))}\n`;
}

/** A hint in full the first time its mistake shows; after, a link back (as the terminal says "the same
 *  mistake as above"). A hint about the case itself is its own each time. */
function hintItem(hint: Hint, check: Shown, hinted: Map<string, Shown>): Html {
  const earlier = hint.aboutTheCase ? undefined : hinted.get(hint.kind);
  if (earlier && earlier.anchor !== check.anchor) {
    return html`<li data-hint="${hint.kind}" class="repeated"><b>hint:</b> the same mistake as in <a href="#${earlier.anchor}">${earlier.name}</a></li>`;
  }
  if (!hint.aboutTheCase) hinted.set(hint.kind, check);
  const [first = '', ...rest] = hint.lines;
  return html`<li data-hint="${hint.kind}"><b>hint:</b> ${first}${rest.map((line) => html`<br>${line}`)}</li>`;
}

/** A check whose hint was shown: its name, and the id of its block (the first failure's is FIRST_FAILURE_ID). */
interface Shown {
  name: string;
  anchor: string;
}

function adviceItem(advice: Advice): Html {
  return html`<li data-advice="${advice.kind}"><b>advice:</b> ${advice.message}<br><span class="dim">the spec (${advice.source}): “${advice.words}”</span></li>`;
}

function keptText(kind: 'stderr' | 'stdout' | 'details', kept: KeptText | null, open: boolean, title: string = kind): Html | false {
  if (kept === null || kept.text === '') return false;
  const cut = kept.truncated && html` <span class="dim">(the first ${kept.text.length} of ${kept.size})</span>`;
  return html`<details class="kept ${kind}"${open && html` open`}><summary>${title}${cut}</summary><pre>${kept.text}</pre></details>`;
}

// ---------------------------------------------------------------------------- the player's words

/** What an endpoint's player said, where it said anything; named by its endpoint where a case has several. */
function protocolSection(session: SessionReport, several: boolean): Html | false {
  if (session.diagnoses.length === 0 && session.more === 0) return false;
  const more = moreDiagnosesLine({ moreDiagnoses: session.more });
  const player = several ? `the player of ${session.endpoint}` : 'the cassette player';
  return html`<section class="protocol" data-endpoint="${session.endpoint}"><h3>${player}${session.cassette !== null && html` (<code>${session.cassette}</code>)`} says</h3>
<ol>${session.diagnoses.map(diagnosisItem)}</ol>${more !== undefined && html`<p class="dim">${more}</p>`}</section>`;
}

function diagnosisItem(diagnosis: Diagnosis): Html {
  return html`<li class="diagnosis"><b>${diagnosis.kind}</b> ${diagnosis.message}</li>`;
}

// ---------------------------------------------------------------------------- the sequence diagram

/** An endpoint's session as a sequence diagram: the client's lane on the left, the endpoint's on the
 *  right (named, where the case has several), one arrow per step (`data-step`), the recorded message
 *  beside a client message the player objected to, the first divergence flagged (and given
 *  `divergenceId`, when asked for). */
function sequenceDiagram(exchange: Exchange, protocol: SessionReport, several: boolean, divergenceId?: string): Html {
  const first = exchange.steps.findIndex((step) => step.diagnosis !== undefined);
  // No kept step diverged, yet the player objected: the session's end (e.g. messages never sent) is where it did.
  const endNote = protocol.diagnoses.find((diagnosis) => diagnosis.kind === 'unused') ?? (first === -1 ? protocol.diagnoses[0] : undefined);
  const flag = html` <span class="flag"${divergenceId !== undefined && html` id="${divergenceId}"`}>first divergence</span>`;
  const rows = exchange.steps.map((step, index) => stepRow(step, index, index === first && flag));
  return html`<figure class="exchange" data-endpoint="${protocol.endpoint}"><figcaption>the exchange${several ? ` with ${protocol.endpoint}` : ''}, as it went over the wire</figcaption>
<div class="lanes"><span>your client</span><span>${several ? protocol.endpoint : 'the server'} (recorded)</span></div>
<ol class="sequence">${rows}${exchange.more > 0 && html`<li class="more">… and ${exchange.more.toLocaleString('en-US')} more messages, not kept</li>`}${
    endNote && html`<li class="end${first === -1 ? ' diverged' : ''}">${first === -1 && flag} <b>${endNote.kind}</b> ${endNote.message}</li>`
  }</ol></figure>`;
}

function stepRow(step: ExchangeStep, index: number, flag: Html | false): Html {
  const classes = ['step', `from-${step.from}`, `kind-${step.kind}`, step.diagnosis && 'diverged', flag && 'first-divergence'].filter(Boolean).join(' ');
  // Beside a message the player objected to, what the recording has there when that is another message
  // (the same one sent at the wrong moment, or with other params, is the diagnosis's to explain).
  const recorded = step.recorded === undefined ? undefined : exchangeStep('client', step.recorded);
  const differs = step.from === 'client' && step.diagnosis !== undefined && (recorded === undefined || label(recorded, false) !== label(step, false));
  const expected = differs && html`<span class="recorded">the recording has ${recorded ? label(recorded) : 'no client message left'}</span>`;
  return html`<li class="${classes}" data-step="${index}"><details><summary><span class="arrow"><span class="label">${label(step)}</span>${expected}${flag}</span></summary>
<div class="messages"><div><h4>${step.from === 'client' ? 'your client sent' : 'the server sent'}</h4><pre>${pretty(step.message)}</pre></div>${
    step.recorded !== undefined && html`<div><h4>the recording has</h4><pre>${pretty(step.recorded)}</pre></div>`
  }</div></details>${step.diagnosis && html`<p class="diagnosis"><b>${step.diagnosis.kind}</b> ${step.diagnosis.message}</p>`}</li>`;
}

/** What an arrow says: `initialize · id 0`, `result · id 0`, `notifications/initialized`, a line's text.
 *  Without the id, what a recorded message and a live one are compared by (ids are remapped). */
function label(step: ExchangeStep, withId = true): string {
  const id = step.id === undefined || !withId ? '' : ` · id ${JSON.stringify(step.id)}`;
  if (step.kind === 'response') return `${responseOutcome(step) ?? 'response'}${id}`;
  if (step.kind === 'line') return `not a message: ${clip(typeof step.message === 'string' ? step.message : JSON.stringify(step.message), LABEL_CHARS)}`;
  // a refused request by its request line (`POST /mcp`), a refusal by its status and why
  if (step.kind === 'transport') return clip(String(step.message).split('\n')[0]!, LABEL_CHARS);
  const params = isObject(step.message) ? step.message.params : undefined;
  const tool = step.method === 'tools/call' && isObject(params) && typeof params.name === 'string' ? ` ${JSON.stringify(clip(params.name, LABEL_CHARS))}` : '';
  return `${step.method}${tool}${id}`;
}

function pretty(message: Json): string {
  return typeof message === 'string' ? message : JSON.stringify(message, null, 2);
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(2)} s`;
}
