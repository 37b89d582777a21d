import { createHash } from 'node:crypto';

// The dashboard as an installable web app: its service worker, and the one page script that registers it
// and turns this device's new-order notifications on and off. Both are fixed text; pages allow the page
// script by its hash (CSP), never inline script in general.

/** The service worker (/dashboard/sw.js, scope /dashboard/): shows each pushed notification and opens its order. */
export const SERVICE_WORKER = `self.addEventListener('install',()=>self.skipWaiting());
self.addEventListener('activate',(e)=>e.waitUntil(self.clients.claim()));
self.addEventListener('push',(e)=>{let d={};try{d=e.data?e.data.json():{};}catch(x){}
const url=typeof d.url==='string'&&d.url.startsWith('/dashboard/')?d.url:'/dashboard';
e.waitUntil(self.registration.showNotification(d.title||'New order',{body:d.body||'',tag:d.order_id||undefined,icon:'/dashboard/icon-192.png',data:{url}}));});
self.addEventListener('notificationclick',(e)=>{e.notification.close();const url=(e.notification.data&&e.notification.data.url)||'/dashboard';
e.waitUntil(self.clients.matchAll({type:'window',includeUncontrolled:true}).then((ws)=>{for(const w of ws){if(new URL(w.url).pathname===url&&'focus' in w)return w.focus();}return self.clients.openWindow(url);}));});
`;

/**
 * Registers the service worker; with #push-toggle on the page, shows the button once the browser can do
 * push and subscribes (PushManager, the VAPID public key in data-key) or unsubscribes this device,
 * telling the dashboard with a form POST that carries the page's _csrf token.
 */
export const PWA_SCRIPT = `(()=>{if(!('serviceWorker' in navigator))return;
const reg=navigator.serviceWorker.register('/dashboard/sw.js',{scope:'/dashboard/'});
const b=document.getElementById('push-toggle'),s=document.getElementById('push-state');if(!b)return;
if(!('PushManager' in window)||!('Notification' in window)){s.textContent='This browser cannot receive notifications. On an iPhone, add the dashboard to the Home Screen first and open it from there.';return;}
const key=Uint8Array.from(atob(b.dataset.key.replace(/-/g,'+').replace(/_/g,'/')),(c)=>c.charCodeAt(0));
const csrf=document.querySelector('#push-card input[name=_csrf]').value;
const post=async(url,sub)=>{const j=sub.toJSON();const f=new URLSearchParams({_csrf:csrf,endpoint:j.endpoint});
if(j.keys){f.set('p256dh',j.keys.p256dh);f.set('auth',j.keys.auth);}
const r=await fetch(url,{method:'POST',body:f,credentials:'same-origin'});if(!r.ok)throw new Error((await r.text())||('refused: '+r.status));};
const show=(on)=>{b.hidden=false;b.disabled=false;b.textContent=on?'Turn off notifications on this device':'Turn on notifications for new orders';b.dataset.on=on?'1':'';};
reg.then((r)=>r.pushManager.getSubscription()).then((sub)=>show(!!sub),()=>show(false));
b.addEventListener('click',async()=>{b.disabled=true;try{const r=await reg;const cur=await r.pushManager.getSubscription();
if(cur){await post(b.dataset.unsubscribe,cur);await cur.unsubscribe();show(false);s.textContent='Notifications are off on this device.';return;}
if((await Notification.requestPermission())!=='granted')throw new Error('notifications are blocked for this site in the browser settings');
const sub=await r.pushManager.subscribe({userVisibleOnly:true,applicationServerKey:key});await post(b.dataset.subscribe,sub);show(true);
s.textContent='Notifications are on: this device is told about every new order.';}catch(err){show(b.dataset.on==='1');s.textContent='Not changed: '+err.message;}});})();`;

/** The CSP source that allows PWA_SCRIPT and nothing else. */
export const PWA_SCRIPT_HASH = `'sha256-${createHash('sha256').update(PWA_SCRIPT).digest('base64')}'`;
