// The sealing chunk Formgate serves beside the browser script (/v1/client-seal.<hash>.js): the
// script loads it only on a page with a sealed form, so other pages never download the cipher.
import { sealFields, sealedBody, type Sealer } from './seal.js';

const sealer: Sealer = { sealedBody, sealFields };
(window as unknown as { FormgateSeal: Sealer }).FormgateSeal = sealer;
