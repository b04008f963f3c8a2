/**
 * Domains no SSO connection may claim, since no one organization owns them: claiming one would
 * route the sign-in of everyone under it to that organization's identity provider. A compact list
 * bundled with the Worker (nothing is downloaded at run time): the public suffixes under which
 * companies register their domains (every single-label top-level domain is refused by the domain
 * pattern already), the shared hosting suffixes whose subdomains belong to different customers,
 * and the free-mail domains whose addresses belong to anyone.
 */

const publicSuffixes = new Set([
  ...["co.uk", "org.uk", "me.uk", "ltd.uk", "plc.uk", "net.uk", "ac.uk", "gov.uk", "nhs.uk", "sch.uk"],
  ...["com.au", "net.au", "org.au", "edu.au", "gov.au", "id.au", "asn.au", "co.nz", "net.nz", "org.nz", "govt.nz"],
  ...["co.jp", "ne.jp", "or.jp", "ac.jp", "go.jp", "gr.jp", "co.kr", "or.kr", "ne.kr", "go.kr", "ac.kr"],
  ...["com.cn", "net.cn", "org.cn", "gov.cn", "edu.cn", "com.hk", "org.hk", "com.tw", "org.tw", "com.sg", "edu.sg"],
  ...["co.in", "net.in", "org.in", "firm.in", "gen.in", "ind.in", "gov.in", "ac.in", "co.id", "or.id", "ac.id"],
  ...["com.my", "com.ph", "com.pk", "com.vn", "co.th", "in.th", "ac.th", "co.il", "org.il", "ac.il", "gov.il"],
  ...["com.tr", "gen.tr", "com.sa", "com.eg", "com.ng", "co.ke", "co.za", "org.za", "gov.za", "com.ua", "org.ua"],
  ...["com.br", "net.br", "org.br", "gov.br", "com.mx", "org.mx", "gob.mx", "com.ar", "gob.ar", "com.co", "com.pe"],
  ...["com.ve", "com.ec", "com.uy", "com.py", "com.bo", "cl.cl", "co.cr", "com.do", "com.gt", "com.pa", "com.sv"],
  ...["com.es", "org.es", "com.pl", "net.pl", "org.pl", "com.pt", "com.gr", "co.at", "or.at", "com.ru", "org.ru"],
  ...["github.io", "gitlab.io", "herokuapp.com", "vercel.app", "netlify.app", "pages.dev", "workers.dev"],
  ...["blogspot.com", "appspot.com", "web.app", "firebaseapp.com", "azurewebsites.net", "cloudfront.net"],
  ...["amazonaws.com", "fly.dev", "onrender.com", "glitch.me", "wordpress.com", "wixsite.com", "myshopify.com"],
]);

const freeMailDomains = new Set([
  ...["gmail.com", "googlemail.com", "outlook.com", "hotmail.com", "hotmail.co.uk", "live.com", "msn.com"],
  ...["yahoo.com", "yahoo.co.uk", "yahoo.co.jp", "ymail.com", "rocketmail.com", "aol.com", "icloud.com", "me.com"],
  ...["mac.com", "proton.me", "protonmail.com", "pm.me", "gmx.com", "gmx.de", "gmx.net", "web.de", "t-online.de"],
  ...["mail.com", "yandex.ru", "yandex.com", "mail.ru", "qq.com", "163.com", "126.com", "zoho.com", "fastmail.com"],
  ...["tutanota.com", "tuta.io", "hey.com", "naver.com", "daum.net", "orange.fr", "free.fr", "laposte.net", "libero.it"],
]);

/** Why `domain` (lower-cased) cannot be claimed, or null when it can. */
export function unclaimableReason(domain: string): string | null {
  if (publicSuffixes.has(domain)) return `${domain} is a public suffix: domains under it belong to different owners`;
  if (freeMailDomains.has(domain)) return `${domain} is a free-mail domain: its addresses belong to anyone`;
  return null;
}
