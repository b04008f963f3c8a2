import type { GatewayAppEnv } from "../env";
import type { ConsoleSession } from "../identity/sessions";
import type { SignedIn } from "./layout";

/** A console request: the gateway's variables, plus the session and what its pages show of it once signed in. */
export type ConsoleEnv = {
  Bindings: GatewayAppEnv["Bindings"];
  Variables: GatewayAppEnv["Variables"] & {
    session: ConsoleSession;
    signedIn: SignedIn;
    /** This response's CSP nonce: the one inline script a page may carry (the copy button's). */
    cspNonce: string;
  };
};
