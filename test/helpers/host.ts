/**
 * Tests that use the kernel or a plugin without booting a server still see the machine as the
 * server would: the service tells the kernel (kernel/host.ts), reading at each use the environment
 * the tests set (CHUNKD_HIDE_PACKAGES, CHUNKD_MODELS_DIR, CHUNKD_RECIPES_DIR, HF_HUB_CACHE, ...).
 * A booted app binds it again with its settings.
 */
import { bindKernelHost } from '../../service/kernel-host.js';

bindKernelHost();
