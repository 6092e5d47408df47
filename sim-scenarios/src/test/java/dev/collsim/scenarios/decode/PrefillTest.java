package dev.collsim.scenarios.decode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collsim.core.units.Rate;
import dev.collsim.topologies.systems.SystemPreset;
import dev.collsim.topologies.systems.WhatIf;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/** Prefill: the time to first token, its KV cache, and the cache's move to a decode instance, after the prefill or layer by layer. */
class PrefillTest {
    private static DecodeSpec llama70b(String system, Rate nic) {
        WhatIf knobs = new WhatIf(nic, 0, 1, 1, true, Map.of(), Map.of(), List.of());
        return new DecodeSpec(ModelConfig.load("llama-3-70b"), new DecodeSystem.Preset(SystemPreset.byName(system), null, OptionalInt.empty(), knobs),
                OptionalInt.empty(), 8, 1, 1, 1, 1, 8192, Precision.BF16, AllReduceKind.AUTO, Overlap.NONE, true);
    }

    private static DecodeSpec llama70bTp(int tp) {
        return new DecodeSpec(ModelConfig.load("llama-3-70b"), DecodeSystem.preset("hgx-h100"), OptionalInt.empty(), tp, 1, 1, 1, 1, 8192,
                Precision.BF16, AllReduceKind.AUTO, Overlap.NONE, true);
    }

    private static PrefillResult.KvTransfer over(PrefillResult r, String link) {
        return r.kv().transfers().stream().filter(x -> x.over().equals(link)).findFirst().orElseThrow();
    }

    /**
     * Llama-3-70B, 8,192 prompt tokens, TP 8 on HGX H100: 80 layers x 8 KV heads x 128 x 2 x 2 B =
     * 320 KiB a token, 2.5 GiB a request, an eighth of it on each GPU; the time to first token is
     * its compute, its communication and the host; the cache goes over the NICs (an HGX node's NVLink
     * holds one TP-8 instance), and on GB200 NVL72 over NVLink much faster than over the network.
     */
    @Test
    void llama70bAt8kTokens() {
        PrefillResult r = Prefill.run(llama70b("hgx-h100", null), 8192, 1, 0);
        assertEquals(320 * 1024, r.kv().bytesPerToken());
        assertEquals(2.5 * (1L << 30), r.kv().bytesPerRequest());
        assertEquals((long) (2.5 * (1L << 30) / 8), r.kv().bytesPerGpu());
        assertTrue(r.time().compute().ms() > 100 && r.time().comm().ms() > 10, r.time().compute().ms() + " ms compute, " + r.time().comm().ms() + " ms communication");
        assertTrue(r.ttft().ms() >= r.time().compute().ms() + r.time().exposedComm().ms(), "the time to first token holds compute and exposed communication");
        assertTrue(over(r, "the network").after().ms() > 0);
        assertNull(over(r, "NVLink").after(), over(r, "NVLink").why());
        PrefillResult rack = Prefill.run(llama70b("gb200-nvl72", null), 8192, 1, 0);
        assertTrue(over(rack, "NVLink").after().ms() < over(rack, "the network").after().ms() / 5,
                over(rack, "NVLink").after().ms() + " ms over NVLink, " + over(rack, "the network").after().ms() + " over the network");
    }

    /**
     * TurboMind (2023) prefills a prompt but its last token, then runs that token through the decoder in the same iteration
     * to make the first token: the time to first token is the prefill of 2,047 tokens, a forward of one token over them and
     * one host step; the same prompt under TensorRT-LLM's TensorRT backend (the same C++ launch cost) is one forward of
     * 2,048 tokens.
     */
    @Test
    void turboMindMakesTheFirstTokenWithADecodeStep() {
        DecodeSpec spec = new DecodeSpec(ModelConfig.load("llama-3-8b"), DecodeSystem.preset("hgx-h100"), OptionalInt.empty(), 1, 1, 1, 1, 1,
                2048, Precision.BF16, AllReduceKind.AUTO, Overlap.NONE, false, ServingEngine.LMDEPLOY, null, null);
        PrefillResult r = Prefill.run(spec, 2048, 1, 0);
        assertEquals(2, r.forwards().size());
        assertEquals(0, r.forwards().get(0).cachedTokens());
        assertEquals(2047, r.forwards().get(0).tokens());
        assertEquals(2047, r.forwards().get(1).cachedTokens());
        assertEquals(1, r.forwards().get(1).tokens());
        double host = ServingEngine.LMDEPLOY.hostMicros(1) / 1000;
        assertEquals(host, r.time().host().ms(), 1e-9, "one host step for the iteration");
        assertEquals(host + r.forwards().get(0).gpu().ms() + r.forwards().get(1).gpu().ms(), r.ttft().ms(), 1e-9);
        DecodeSpec tensorrt = new DecodeSpec(spec.model(), spec.system(), OptionalInt.empty(), 1, 1, 1, 1, 1, 2048, Precision.BF16,
                AllReduceKind.AUTO, Overlap.NONE, false, ServingEngine.TRTLLM_TENSORRT, null, null);
        assertEquals(1, Prefill.run(tensorrt, 2048, 1, 0).forwards().size());
        PrefillResult one = Prefill.run(spec, 1, 1, 0);
        assertEquals(1, one.forwards().size(), "a one-token prompt is the decoder's alone");
        assertEquals(host, one.time().host().ms(), 1e-9);
    }

    /**
     * Sent layer by layer, the cache hides behind the prefill while a layer's share sends faster than
     * the next layer computes (400 Gb/s NICs: nothing exposed), and exposes only the excess when it
     * sends slower (1 Gb/s: the link is busy from the first layer's end, so what shows is the whole
     * send less the prefill after that first layer).
     */
    @Test
    void layerByLayerHidesWhatThePrefillCovers() {
        PrefillResult fast = Prefill.run(llama70b("hgx-h100", null), 8192, 1, 0);
        assertEquals(0, over(fast, "the network").exposed().ms(), 1e-9);
        PrefillResult slow = Prefill.run(llama70b("hgx-h100", Rate.parse("1Gb/s")), 8192, 1, 0);
        PrefillResult.KvTransfer x = over(slow, "the network");
        double firstLayerEnd = slow.time().host().ms() + slow.layers().get(0).time().ms();
        double excess = x.after().ms() - (slow.ttft().ms() - firstLayerEnd);
        assertTrue(x.exposed().ms() > 0 && x.exposed().ms() < x.after().ms(), x.exposed().ms() + " ms exposed of " + x.after().ms());
        assertEquals(excess, x.exposed().ms(), 0.01 * x.after().ms(), "the excess over what the prefill covers");
    }

    /** In chunks, each forward attends to the chunks before it: the tokens add up, and the chunks take longer than one forward. */
    @Test
    void chunkedPrefillAddsForwards() {
        PrefillResult whole = Prefill.run(llama70b("hgx-h100", null), 8192, 1, 0);
        PrefillResult chunked = Prefill.run(llama70b("hgx-h100", null), 8192, 1, 2048);
        assertEquals(4, chunked.forwards().size());
        assertEquals(8192, chunked.forwards().stream().mapToInt(PrefillResult.Forward::tokens).sum());
        assertEquals(6144, chunked.forwards().get(3).cachedTokens());
        assertTrue(chunked.ttft().ms() > whole.ttft().ms(), chunked.ttft().ms() + " ms in chunks, " + whole.ttft().ms() + " whole");
        assertTrue(chunked.forwards().get(3).gpu().ms() > chunked.forwards().get(0).gpu().ms(), "the last chunk attends to the most");
    }

    /**
     * In chunks, each forward's share of a layer's cache leaves when that layer ends in that forward:
     * the earlier chunks' cache goes out while the later ones compute, so less shows after the last.
     */
    @Test
    void chunkedPrefillSendsEachChunksCacheAsItsLayersEnd() {
        Rate nic = Rate.parse("10Gb/s");
        PrefillResult whole = Prefill.run(llama70b("hgx-h100", nic), 8192, 1, 0);
        PrefillResult chunked = Prefill.run(llama70b("hgx-h100", nic), 8192, 1, 2048);
        PrefillResult.KvTransfer w = over(whole, "the network");
        PrefillResult.KvTransfer c = over(chunked, "the network");
        assertEquals(w.after().ms(), c.after().ms(), 1e-9, "the same cache after the prefill");
        assertTrue(c.exposed().ms() > 0 && c.exposed().ms() < w.exposed().ms() / 2, c.exposed().ms() + " ms exposed in chunks, " + w.exposed().ms() + " whole");
    }

    /**
     * A TP group across two nodes sends its cache on both nodes' NICs at once (nodes 0-1 to 2-3, each
     * GPU to its peer on its rail), where it was not simulated at all before. Llama-3-70B has 8 KV
     * heads, so at TP 16 each GPU holds one head, as at TP 8: the same bytes a GPU, and with a NIC per
     * GPU the same time; had the sixteen sends shared one node's NICs, twice as long.
     */
    @Test
    void aTpGroupAcrossNodesSendsOnEveryNodesNics() {
        PrefillResult eight = Prefill.run(llama70bTp(8), 8192, 1, 0);
        PrefillResult sixteen = Prefill.run(llama70bTp(16), 8192, 1, 0);
        assertEquals(eight.kv().bytesPerGpu(), sixteen.kv().bytesPerGpu());
        PrefillResult.KvTransfer across = over(sixteen, "the network");
        assertTrue(across.simulated(), across.why());
        double ratio = across.after().ms() / over(eight, "the network").after().ms();
        assertEquals(1, ratio, 0.05, across.after().ms() + " ms at TP 16 against " + over(eight, "the network").after().ms() + " ms at TP 8");
    }

    /**
     * A KV send contends with the prefill's own collectives only where they cross the same links. A TP group in one
     * node reduces over NVLink and sends its cache over the NICs: neither slows the other. A TP group across two nodes
     * reduces over the NICs too, as does a TP group whose decode peers sit in its NVLink domain over the GPUs' NVLink
     * ports: there each slows the other, and the forward's collectives hold the links for part of its time.
     */
    @Test
    void aKvSendContendsWithTheCollectivesWhereTheyShareLinks() {
        Prefill.KvContention apart = contention(llama70bTp(8), false);
        assertEquals(1, apart.kvSlowdown(), 0.01, apart.toString());
        assertEquals(1, apart.collectiveSlowdown(), 0.01, apart.toString());
        assertEquals(1, apart.kvFactor(), 0.01, apart.toString());
        for (Prefill.KvContention shared : List.of(contention(llama70bTp(16), false), contention(llama70bTp(4), true))) {
            assertTrue(shared.kvSlowdown() > 1.2, shared.toString());
            assertTrue(shared.collectiveSlowdown() > 1.05, shared.toString());
            assertTrue(shared.commShare() > 0 && shared.commShare() < 1, shared.toString());
            assertTrue(shared.kvFactor() > 1 && shared.kvFactor() < shared.kvSlowdown(), shared.toString());
            assertEquals(1, shared.forwardFactor(0), 1e-12);
            assertTrue(shared.forwardFactor(1) > shared.forwardFactor(0.5), shared.toString());
        }
        DecodeSpec alone = new DecodeSpec(ModelConfig.load("llama-3-8b"), DecodeSystem.preset("hgx-h100"), OptionalInt.empty(), 1, 1, 1, 1, 1, 8192,
                Precision.BF16, AllReduceKind.AUTO, Overlap.NONE, true);
        assertEquals(Prefill.KvContention.NONE, contention(alone, true));
    }

    /** {@link Prefill#kvContention} of one 4,096-token prompt's prefill on {@code layout}. */
    private static Prefill.KvContention contention(DecodeSpec layout, boolean nvlink) {
        return Prefill.kvContention(layout, Prefill.run(layout, 4096, 1, 0, new CommModel.Cache(), true), nvlink);
    }
}
