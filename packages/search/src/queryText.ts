/**
 * The topic of a question: the words that say what to look for, without the frame a person or an agent
 * puts around them. "What do we know about the cache" asks about the cache; "know" matched "if we know
 * there's a hardline" first, and the frame words count against every item in term coverage. "Who works
 * on the CLI" asks about the CLI ("works" matched "Skip uploading coverage work in fork"). Only a leading
 * frame goes, and only when words are left; the second stage's models (a hosted cross-encoder, an LLM)
 * still read the question as asked.
 */
import { lexemes } from '@engram/text';

const SUBJECT = String.raw`(?:we|you|i|they|the team|our team|people|anyone|someone)`;
const FRAMES: readonly RegExp[] = [
  // what do we know about X / what have we decided on X / what did the team say about X
  new RegExp(String.raw`^(?:what|which)\s+(?:do|did|does|have|has|had)\s+${SUBJECT}\s+(?:know|knew|have|had|say|said|decide|decided|do|did|write|wrote|learn|learned|learnt)(?:\s+(?:about|on|regarding|for|with))?\s+`, 'i'),
  // what is known / what is there about X
  /^what(?:'s|\s+is|\s+was)\s+(?:known|there|new)(?:\s+(?:about|on|regarding|for|with))?\s+/i,
  // tell me (everything) about X, show me X, find X, search for X
  /^(?:please\s+)?(?:tell|show|give)\s+me(?:\s+(?:everything|anything|all|more))?(?:\s+(?:about|on|regarding|for))?\s+/i,
  /^(?:please\s+)?(?:find|search(?:\s+for)?|look\s+up|look\s+for)\s+/i,
  // who works on X / who knows about X / who is working on X / who owns X
  /^who(?:'s|\s+is|\s+was)?\s+(?:works?|worked|working|knows?|knew|owns?|owned|maintains?|maintained|wrote|changed|touched|reviews?|reviewed|responsible\s+for|the\s+expert\s+(?:on|in|for))(?:\s+(?:on|about|with|in))?\s+/i,
  // how / why / when / where do we X
  new RegExp(String.raw`^(?:how|why|when|where)\s+(?:do|did|does|is|are|was|were|have|has|had|can|should|would)\s+(?:${SUBJECT}\s+)?`, 'i'),
  /^how\s+to\s+/i,
  // is there anything about X / do we have X / are there X
  /^(?:is|are)\s+there(?:\s+(?:any|anything|something))?(?:\s+(?:about|on|regarding|for))?\s+/i,
  /^(?:do|did)\s+(?:we|you)\s+(?:have|know|use)(?:\s+(?:any|anything))?(?:\s+(?:about|on|regarding|for))?\s+/i,
  // anything / history / context about X
  /^(?:anything|everything|history|context|background|info(?:rmation)?|details)\s+(?:about|on|regarding|for|of)\s+/i,
];

export function topicOf(question: string): string {
  let topic = question.trim();
  for (let changed = true; changed; ) {
    changed = false;
    for (const frame of FRAMES) {
      const rest = topic.replace(frame, '');
      if (rest !== topic && lexemes(rest).length > 0) {
        topic = rest;
        changed = true;
      }
    }
  }
  return topic.replace(/\s*\?+\s*$/, '').trim() || question.trim();
}
