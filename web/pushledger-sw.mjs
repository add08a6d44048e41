// PushLedger for module service workers (`navigator.serviceWorker.register(url, {type: 'module'})`): the same
// classic scripts a classic worker loads with importScripts, evaluated in order, and their API.
import './pushledger-contract.js';
import './pushledger-core.js';
import './pushledger-ledger.js';
import './pushledger-sw.js';

const PushLedger = globalThis.PushLedger;
export default PushLedger;
