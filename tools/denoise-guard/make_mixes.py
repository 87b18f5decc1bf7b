"""Training mixes for the mix-back guard experiment (README.md): KLettres voices of the languages the
evaluation leaves out, at their own pace, sped up and slowed (phase vocoder), over noises the evaluation
does not use (Debian game music from the real set, babble of those voices, coloured noise).
    python3 make_mixes.py VOICES_DIR REALSET_DIR OUT_DIR"""
import numpy as np, soundfile as sf, glob, os, random, sys, librosa
from scipy.signal import resample_poly, lfilter
R=48000; rng=np.random.default_rng(7); random.seed(7)
voices_dir,realset_dir,out=sys.argv[1:4]
root=f'{voices_dir}/x/usr/share/klettres'
langs=['cs','da','fr','id','lt','ml','nb','nn','ru','tn','uk']
def load(p):
    x,r=sf.read(p,always_2d=True); x=x.mean(1)
    g=np.gcd(r,R); x=resample_poly(x,R//g,r//g)
    e=np.convolve(x**2,np.ones(480)/480,'same'); th=e.max()*10**(-4.5)
    idx=np.where(e>th)[0]
    return x[idx[0]:idx[-1]+1] if len(idx) else x[:0]
utts=[]
for l in langs:
    files=sorted(glob.glob(f'{root}/{l}/syllab/*.ogg'))+sorted(glob.glob(f'{root}/{l}/alpha/*.ogg'))
    random.shuffle(files)
    recs=[r for r in (load(f) for f in files[:60]) if len(r)>0.1*R]
    k=0
    for u in range(6):
        parts=[];n=0
        while n<3.2*R and k<len(recs):
            parts+= [recs[k], np.zeros(int(0.15*R))]; n+=len(recs[k])+int(0.15*R); k+=1
        if n<2*R: break
        x=np.concatenate(parts)
        pk=np.abs(x).max(); x=x/pk*0.5
        utts.append((f'{l}{u}',x))
print('utterances',len(utts))
# tempo variants: phase vocoder (librosa), slowed and sped
allu=[]
for name,x in utts:
    allu.append((name+'t1',x[:3*R]))
    allu.append((name+'t1b',x[len(x)-3*R:] if len(x)>3*R else x))
    allu.append((name+'fast',librosa.effects.time_stretch(x.astype(np.float32),rate=random.choice([1.2,1.4]))[:3*R]))
    rate=random.choice([0.55,0.65,0.75])
    allu.append((name+'slow',librosa.effects.time_stretch(x.astype(np.float32),rate=rate)[:3*R]))
# noises
music=[load(p) for p in sorted(glob.glob(f'{realset_dir}/clips/*.wav'))[::3]]
music=[m for m in music if len(m)>4*R]
def babble():
    b=np.zeros(3*R)
    for _ in range(6):
        _,x=random.choice(utts); o=rng.integers(0,max(1,len(x)-3*R)); s=x[o:o+3*R]; b[:len(s)]+=s*rng.uniform(0.5,1)
    return b
def colored():
    w=rng.standard_normal(3*R)
    a=random.choice([[1,-0.99],[1,-0.9],[1,-0.5]])
    n=lfilter([1],a,w); t=np.arange(3*R)/R
    n*=1+0.5*np.sin(2*np.pi*rng.uniform(0.1,1)*t)
    return n
os.makedirs(out,exist_ok=True)
count=0
for name,s in allu:
    if len(s)<2*R: continue
    for kind in random.sample(['music','babble','colored','music2'],2):
        if kind.startswith('music'):
            m=random.choice(music); o=rng.integers(0,len(m)-len(s)); n=m[o:o+len(s)]
        elif kind=='babble': n=babble()[:len(s)]
        else: n=colored()[:len(s)]
        snr=random.choice([0,5,5,10,10,15])
        g=np.sqrt(np.sum(s**2)/np.sum(n**2)/10**(snr/10))
        x=s+g*n; pk=np.abs(x).max()/0.9; 
        base=f'{out}/{name}.{kind}.{snr}'
        (x/pk).astype(np.float32).tofile(base+'.x.f32'); (s/pk).astype(np.float32).tofile(base+'.s.f32')
        count+=1
print('mixes',count)
