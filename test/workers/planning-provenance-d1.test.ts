import { env } from 'cloudflare:workers';
import { D1ProvenanceStore } from '../../src/planner/provenance-d1';
import { provenanceStoreConformance } from '../unit/planner-provenance-conformance';

provenanceStoreConformance('D1ProvenanceStore', () => new D1ProvenanceStore(env.DB));
