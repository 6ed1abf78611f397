// Synthetic but realistic corpus for the retrieval benchmark: notes across many threads, two tenants, several owners and
// every visibility, loaded with batched SQL straight into the store's database, with chunk vectors from the built-in
// embedder computed in-process (the same chunking and model the embedder service uses).
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { contentHash } from "@context-hub/common";
import { openDatabase } from "@context-hub/store";
import { createUuidV7 } from "@context-hub/store/testing";
import { builtinEmbeddingModel, builtinEmbeddingModels } from "@context-hub/embedder";
import { chunkText, embedText, loadWordVectors, toDefaultCacheDir } from "@context-hub/text";

/** The built-in embedder's default model, so the corpus's vectors are those `context-hub start` would write. */
export const builtinModel = builtinEmbeddingModel;
const builtinLayout = builtinEmbeddingModels[builtinModel];
/** Options of `embedText` for the default model (its word-form dimensions). */
export const builtinEmbedOptions = { lexicalDimensions: builtinLayout.lexicalDimensions };
export const builtinDimension = builtinLayout.dimension;

const topics = [
  [
    "turbine maintenance",
    "turbine blade rotor bearing vibration crack fatigue inspection torque gearbox nacelle lubrication borescope shaft coupling",
  ],
  [
    "billing",
    "invoice refund chargeback subscription payment card dispute credit ledger proration tax receipt renewal discount overdue",
  ],
  [
    "kubernetes",
    "pod deployment node cluster helm ingress replica rollout namespace container image kubelet scheduler autoscaler probe",
  ],
  [
    "database tuning",
    "index query planner vacuum replication latency lock transaction partition cache buffer checkpoint deadlock schema migration",
  ],
  [
    "customer onboarding",
    "signup welcome tutorial account activation trial checklist walkthrough training kickoff adoption champion milestone handoff portal",
  ],
  [
    "security incident",
    "breach phishing credential token rotation firewall malware forensic audit alert intrusion patch vulnerability exposure containment",
  ],
  [
    "hiring",
    "candidate interview offer recruiter resume onsite referral salary headcount pipeline screening hiring manager rubric",
  ],
  [
    "marketing campaign",
    "campaign audience newsletter webinar conversion funnel landing brand launch social email budget impressions attribution segment",
  ],
  [
    "supply chain",
    "supplier shipment warehouse inventory freight customs container pallet procurement backorder forecast lead logistics carrier stock",
  ],
  [
    "mobile app",
    "android ios release crash screen login notification gesture offline store review build simulator permission battery",
  ],
  [
    "legal contracts",
    "contract clause liability indemnity termination renewal signature counsel amendment jurisdiction warranty compliance confidentiality negotiation vendor",
  ],
  [
    "data pipeline",
    "ingestion batch stream schema kafka spark warehouse partition backfill lineage transformation airflow connector quality freshness",
  ],
  [
    "office facilities",
    "office desk badge parking cafeteria cleaning lease meeting room heating elevator lighting furniture visitor reception",
  ],
  [
    "machine learning",
    "model training dataset feature label accuracy validation gradient embedding inference drift overfitting hyperparameter evaluation checkpoint",
  ],
  [
    "network outage",
    "router switch packet loss dns bgp latency outage bandwidth failover link vpn gateway firmware uplink",
  ],
  [
    "product roadmap",
    "roadmap feature priority quarter release milestone stakeholder requirement backlog epic estimate dependency launch beta feedback",
  ],
  [
    "finance close",
    "accrual journal reconciliation budget forecast variance revenue expense audit balance statement depreciation payroll quarter closing",
  ],
  [
    "customer support",
    "ticket escalation response agent satisfaction refund complaint queue macro sla chat callback resolution knowledge survey",
  ],
  [
    "frontend performance",
    "render bundle javascript css layout paint hydration lighthouse cache image lazy font component webpack latency",
  ],
  [
    "energy grid",
    "substation transformer voltage load outage generator solar battery frequency transmission meter demand capacity dispatch",
  ],
  [
    "clinical trial",
    "patient dosage protocol enrollment placebo adverse endpoint consent cohort investigator randomization biomarker efficacy safety site",
  ],
  [
    "aviation operations",
    "flight crew aircraft runway delay maintenance airport fuel gate pilot schedule turnaround cargo weather clearance",
  ],
  [
    "retail store",
    "store shelf cashier inventory promotion footfall checkout display shrinkage merchandising planogram loyalty manager receipt season",
  ],
  [
    "research paper",
    "hypothesis experiment citation reviewer manuscript dataset method result figure appendix journal abstract baseline ablation replication",
  ],
  [
    "construction project",
    "concrete permit inspection contractor foundation crane scaffold blueprint schedule site safety steel excavation drywall subcontractor",
  ],
  [
    "accessibility",
    "screen reader contrast keyboard focus caption alt text aria label navigation heading wcag audit color zoom",
  ],
  [
    "localization",
    "translation locale string plural currency date format glossary vendor rtl encoding language release review terminology",
  ],
  [
    "observability",
    "metrics tracing logs dashboard alert span latency histogram exporter sampling cardinality retention prometheus grafana slo",
  ],
  [
    "travel policy",
    "travel expense flight hotel per diem booking reimbursement receipt approval mileage visa itinerary policy conference lodging",
  ],
  [
    "game design",
    "level player quest balance reward enemy boss difficulty playtest map economy loot tutorial animation multiplayer",
  ],
].map(([name, words]) => ({ name, words: words.split(" ") }));

const common = (
  "the a of to and in for on with that is was this it as by from at be we our team will should after before during because however also then " +
  "report note update issue plan result found checked confirmed pending next week today customer service system review status owner follow up " +
  "agreed decided noticed raised open closed risk action item summary meeting discussed shared"
).split(" ");

/** A seeded PRNG (mulberry32), so every run builds the same corpus. */
export function createRandom(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = (random, list) => list[Math.floor(random() * list.length)];

/**
 * One note: a heading and 4–9 sentences (more while it is shorter than `minChars`), mostly its topic's words, some
 * common words, a little of another topic.
 */
function noteText(random, topic, index, minChars = 0) {
  const other = pick(random, topics);
  let text = `# ${topic.name[0].toUpperCase()}${topic.name.slice(1)} note ${index}\n\n`;
  const sentences = 4 + Math.floor(random() * 6);
  for (let sentence = 0; sentence < sentences || text.length < minChars; sentence++) {
    const words = [];
    const length = 9 + Math.floor(random() * 8);
    for (let word = 0; word < length; word++) {
      const roll = random();
      words.push(
        roll < 0.45 ? pick(random, topic.words) : roll < 0.92 ? pick(random, common) : pick(random, other.words),
      );
    }
    if (random() < 0.2) words.push(`ref-${Math.floor(random() * 100000)}`);
    text += `${words.join(" ")}. `;
    if (sentence === 3) text += "\n\n";
  }
  return text.trimEnd();
}

/** Note `index` of the corpus's kind, cut to `chars` characters: the same text for the same index in every run. */
export function sizedNote(index, chars) {
  const random = createRandom(0x5eed0000 + index);
  return noteText(random, pick(random, topics), index, chars).slice(0, chars);
}

/** 2–4 distinct words of one topic, as a person would type them. */
export function makeQueries(count, seed) {
  const random = createRandom(seed);
  return Array.from({ length: count }, () => {
    const topic = pick(random, topics);
    const words = new Set();
    const size = 2 + Math.floor(random() * 3);
    while (words.size < size) words.add(pick(random, topic.words));
    return [...words].join(" ");
  });
}

/**
 * The principals of the corpus: tenant `acme` (90% of entries, owners u0–u19) and `globex` (g0–g4). The benchmark
 * searches as acme's u3 in group eng, who may read its own entries, acme's tenant-visible ones and the threads shared
 * with eng: about half of acme, so every query runs the full access predicate.
 */
export const benchPrincipal = { tenant: "acme", subject: "u3", groups: ["eng"], scopes: ["context:read"] };

function preview(text) {
  const flat = text.slice(0, 1200).replace(/\s+/g, " ").trim();
  if (flat.length <= 300) return flat;
  const cut = flat.lastIndexOf(" ", 300);
  return `${flat.slice(0, cut > 220 ? cut : 300)}…`;
}

/**
 * Loads `size` entries into `db` in batches of 1,000 (entries, their chunks with vectors, thread grants), and returns
 * timing. Threads hold ~25 entries each; a thread is private, tenant-visible or shared with group eng as a whole.
 */
export async function loadCorpus(db, size, { seed = 7, log = () => {} } = {}) {
  const random = createRandom(seed);
  const vectors = await loadWordVectors(toDefaultCacheDir(process.env));
  const vectorLiteral =
    db.vectorType === "pgvector"
      ? (v) => `[${Array.from(v, (x) => x.toFixed(6)).join(",")}]`
      : (v) => `{${Array.from(v, (x) => x.toFixed(6)).join(",")}}`;
  const threads = Math.max(1, Math.round(size / 25));
  const threadInfo = Array.from({ length: threads }, (_, index) => {
    const tenant = index % 10 === 9 ? "globex" : "acme";
    const owner = tenant === "acme" ? `u${Math.floor(random() * 20)}` : `g${Math.floor(random() * 5)}`;
    const roll = random();
    return {
      id: `thread-${index}`,
      tenant,
      owner,
      visibility: roll < 0.5 ? "private" : roll < 0.85 ? "tenant" : "shared",
      topic: pick(random, topics),
    };
  });
  const started = performance.now();
  let embedMs = 0;
  const base = Date.now() - 365 * 24 * 3600 * 1000;
  for (let from = 0; from < size; from += 1000) {
    const rows = [];
    const chunks = [];
    for (let index = from; index < Math.min(size, from + 1000); index++) {
      const thread = threadInfo[Math.floor(random() * threads)];
      const topic = random() < 0.8 ? thread.topic : pick(random, topics);
      const text = noteText(random, topic, index);
      const createdAt = base + Math.floor((index / size) * 365 * 24 * 3600 * 1000);
      const id = createUuidV7(createdAt);
      rows.push({ id, thread, text, createdAt, topic });
      const embedStart = performance.now();
      for (const [ordinal, chunk] of chunkText(text).entries())
        chunks.push({
          entryId: id,
          tenant: thread.tenant,
          ordinal,
          start: chunk.start,
          end: chunk.end,
          vector: vectorLiteral(embedText(text.slice(chunk.start, chunk.end), vectors, builtinEmbedOptions)),
        });
      embedMs += performance.now() - embedStart;
    }
    await db.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO entries (id, tenant, thread_id, source, owner, visibility, text, text_length, preview, content_hash, metadata, tags, summary, created_at, updated_at)
         SELECT r.id, r.tenant, r.thread_id, 'agent', r.owner, r.visibility, r.text, char_length(r.text), r.preview, r.hash, r.metadata::jsonb, ARRAY[r.tag], r.summary, r.at, r.at
         FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::timestamptz[])
           AS r (id, tenant, thread_id, owner, visibility, text, preview, hash, metadata, tag, summary, at)`,
        [
          rows.map((row) => row.id),
          rows.map((row) => row.thread.tenant),
          rows.map((row) => row.thread.id),
          rows.map((row) => row.thread.owner),
          rows.map((row) => row.thread.visibility),
          rows.map((row) => row.text),
          rows.map((row) => preview(row.text)),
          rows.map((row) => contentHash(row.text)),
          rows.map((row) =>
            JSON.stringify({
              priority: 1 + (row.text.length % 5),
              status: row.text.length % 3 === 0 ? "open" : "closed",
            }),
          ),
          rows.map((row) => row.topic.name.replace(/ /g, "-")),
          rows.map((row) => row.text.split(". ")[0].slice(0, 200)),
          rows.map((row) => new Date(row.createdAt).toISOString()),
        ],
      );
      await tx.query(
        `INSERT INTO chunks (id, entry_id, tenant, ordinal, start_offset, end_offset, embedding_model, embedding)
         SELECT gen_random_uuid(), c.entry_id, c.tenant, c.ordinal, c.start_offset, c.end_offset, $1, c.embedding::${db.vectorType === "pgvector" ? "vector" : "real[]"}
         FROM unnest($2::uuid[], $3::text[], $4::integer[], $5::integer[], $6::integer[], $7::text[]) AS c (entry_id, tenant, ordinal, start_offset, end_offset, embedding)`,
        [
          builtinModel,
          chunks.map((chunk) => chunk.entryId),
          chunks.map((chunk) => chunk.tenant),
          chunks.map((chunk) => chunk.ordinal),
          chunks.map((chunk) => chunk.start),
          chunks.map((chunk) => chunk.end),
          chunks.map((chunk) => chunk.vector),
        ],
      );
    });
    if ((from / 1000) % 10 === 9) log(`  loaded ${from + 1000} entries`);
  }
  const shared = threadInfo.filter((thread) => thread.visibility === "shared");
  await db.query(
    `INSERT INTO grants (id, tenant, grantor, thread_id, grantee_kind, grantee, permission)
     SELECT gen_random_uuid(), g.tenant, g.grantor, g.thread_id, 'group', 'eng', 'read' FROM unnest($1::text[], $2::text[], $3::text[]) AS g (tenant, grantor, thread_id)`,
    [shared.map((thread) => thread.tenant), shared.map((thread) => thread.owner), shared.map((thread) => thread.id)],
  );
  return { loadMs: performance.now() - started, embedMs, threads };
}

/**
 * The corpus kept in `dataDir` (PGlite), loaded with `size` entries first when the directory holds none yet: the
 * in-store benches (bm25-pruning.js, term-scoring.js) measure one corpus over and over.
 */
export async function openKeptCorpus(dataDir, size, logger, log) {
  mkdirSync(dataDir, { recursive: true });
  const db = await openDatabase({ url: "", dataDir, poolMax: 1 }, logger);
  if (!existsSync(join(dataDir, "entries-loaded"))) {
    log(`loading ${size} entries into ${dataDir}…`);
    await loadCorpus(db, size, { log });
    writeFileSync(join(dataDir, "entries-loaded"), `${size}\n`);
  }
  return db;
}
