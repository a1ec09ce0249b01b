/** Every suite, in the order of results.md. A suite is one file; add it here. */
import type { Suite } from '../harness.js';
import { adversarialSuite, adversarialUploadsSuite } from './adversarial.js';
import { adversarialChefsSuite } from './adversarial-chefs.js';
import { capacitySuite } from './capacity.js';
import { codeSuite } from './code.js';
import { encodeSuite } from './encode.js';
import { fastSuite } from './fast.js';
import { httpSuite } from './http.js';
import { idsSuite } from './ids.js';
import { jobsSuite } from './jobs.js';
import { overlapSuite } from './overlap.js';
import { poolSuite } from './pool.js';
import { qualitySuite } from './quality.js';
import { qualityHeldOutSuite } from './quality-heldout.js';
import { qualityModesSuite } from './quality-modes.js';
import { qualityStoreSuite } from './quality-store.js';
import { recursiveSuite } from './recursive.js';
import { semanticSuite } from './semantic.js';
import { sentenceSuite } from './sentence.js';
import { storesSuite } from './stores.js';
import { tableSuite } from './table.js';
import { tokenSuite } from './token.js';

export const SUITES: Suite[] = [
  encodeSuite,
  tokenSuite,
  recursiveSuite,
  sentenceSuite,
  codeSuite,
  fastSuite,
  idsSuite,
  tableSuite,
  semanticSuite,
  overlapSuite,
  httpSuite,
  poolSuite,
  jobsSuite,
  capacitySuite,
  adversarialSuite,
  adversarialUploadsSuite,
  adversarialChefsSuite,
  qualitySuite,
  qualityHeldOutSuite,
  qualityModesSuite,
  qualityStoreSuite,
  storesSuite,
];
